import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "pino";
import { audioFormatOf, NoteTakerLinkExpiredError, type PollSchedule } from "../notetaker/index.ts";
import type { Store } from "../store/index.ts";
import type { Admission } from "./admission.ts";
import { checkDownload } from "./check-download.ts";
import { JobStepError } from "./failure-policy.ts";
import type { Gateway } from "./gateway.ts";
import type { ActiveJob, Job, JobIn } from "./job.ts";
import type { NoteTakerPort } from "./note-taker-port.ts";
import { summarizeSpeakers } from "./speaker-summary.ts";
import type { StoredTemplate } from "./templates.ts";
import { type JobEvent, MAX_RELINKS } from "./transitions.ts";

export interface StageLimits {
  transcribingMs: number;
  writingMs: number;
}

export const defaultStageLimits: StageLimits = {
  transcribingMs: 3 * 60 * 60_000,
  writingMs: 60 * 60_000,
};

/** What a step may use. `commit` applies an event and persists the result before returning. */
export interface StepContext {
  client: NoteTakerPort;
  gateway: Gateway;
  store: Store;
  /** Fair-use slots: a queued job starts only when one is free. */
  admission: Admission;
  schedule: PollSchedule;
  limits: StageLimits;
  tempDir: string;
  now: () => number;
  signal: AbortSignal;
  logger: Logger;
  commit(job: Job, event: JobEvent): Promise<Job>;
  /**
   * Shows the job's state in Slack. "progress" edits are throttled; "stage" ones always go
   * out but a failure is only logged; a "required" one (a prompt the user must act on) throws.
   */
  showStatus(job: Job, mode: "progress" | "stage" | "required"): Promise<Job>;
}

/** Runs the next piece of work of an active job and returns the job as it then stands. */
export function runStep(ctx: StepContext, job: ActiveJob): Promise<Job> {
  switch (job.stage) {
    case "queued":
      return queued(ctx, job);
    case "downloading":
      return downloading(ctx, job);
    case "transcribing":
      return transcribing(ctx, job);
    case "naming":
      return naming(ctx, job);
    case "writing":
      return writing(ctx, job);
    case "delivering":
      return delivering(ctx, job);
  }
}

/**
 * Starts the download once a fair-use slot is free; until then the job waits, looking
 * again every poll interval (or sooner, when a slot is given back), and its status message
 * says how many recordings are ahead of it.
 */
async function queued(ctx: StepContext, job: JobIn<"queued">): Promise<Job> {
  const place = await ctx.admission.request(job);
  if (!place.admitted) {
    // Look again after the longest poll wait; a freed slot kicks the job sooner.
    const wakeAt = ctx.now() + ctx.schedule.delayMs(Number.MAX_SAFE_INTEGER);
    const waiting = await ctx.commit(job, {
      type: "admission_waiting",
      ahead: place.ahead,
      wakeAt,
    });
    return place.ahead === job.ahead ? waiting : ctx.showStatus(waiting, "stage");
  }
  const shown = await ctx.showStatus(job, "stage");
  return ctx.commit(shown, { type: "download_started", tempPath: audioPath(ctx, job) });
}

/**
 * Temp files are named after their job: start-up clean-up knows whose they are. The
 * extension is one of the known audio formats, never a piece of the file's name.
 */
function audioPath(ctx: StepContext, job: Job): string {
  return join(ctx.tempDir, `${job.id}.${audioFormatOf(job.source.filename) ?? "audio"}`);
}

function fileExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function downloading(ctx: StepContext, job: JobIn<"downloading">): Promise<Job> {
  await ctx.gateway.downloadSource(job, job.tempPath, ctx.signal);
  const size = await stat(job.tempPath).then(
    (s) => s.size,
    () => 0,
  );
  if (size === 0) throw new JobStepError({ code: "download_failed" }, true);
  // Before any Note Service call; a failure here deletes the copy (the runner's clean-up).
  await checkDownload(job.tempPath);
  return ctx.showStatus(await ctx.commit(job, { type: "downloaded" }), "stage");
}

async function transcribing(ctx: StepContext, job: JobIn<"transcribing">): Promise<Job> {
  checkLimit(ctx, job, ctx.limits.transcribingMs);
  const { taskId } = job.audio;
  if (taskId === undefined) return submitAudio(ctx, job);
  const task = await ctx.client.getAudioTask(taskId, ctx.signal);
  if (task.status === "running") {
    const wakeAt = ctx.now() + ctx.schedule.delayMs(job.audio.pollAttempt + 1);
    const polled = await ctx.commit(job, { type: "audio_polled", progress: task.progress, wakeAt });
    return ctx.showStatus(polled, "progress");
  }
  if (task.status === "failed") {
    throw new JobStepError({ code: "task_failed", detail: task.message }, true);
  }
  const dialog = await ctx.client.fetchDialog(task.result.dialog_url, ctx.signal);
  if (!dialog.some((entry) => entry.text.trim() !== "")) {
    throw new JobStepError({ code: "no_speech" }, false);
  }
  return ctx.commit(job, { type: "transcribed", dialog, speakers: summarizeSpeakers(dialog) });
}

/** Asks who the speakers are, then waits for a person: no timer until they answer. */
async function naming(ctx: StepContext, job: JobIn<"naming">): Promise<Job> {
  const shown = await ctx.showStatus(job, "required");
  return ctx.commit(shown, { type: "awaiting_names" });
}

async function submitAudio(ctx: StepContext, job: JobIn<"transcribing">): Promise<Job> {
  const { tempPath } = job;
  if (tempPath === undefined || !(await fileExists(tempPath))) {
    // Downloaded by another replica, or lost with a container's disk: download it here.
    return ctx.commit(job, { type: "source_missing", tempPath: audioPath(ctx, job) });
  }
  // The intent is stored first: the API has no idempotency key, so the window in which a
  // crash could make a second remote task is this one submission (see README).
  const submitting = await ctx.commit(job, { type: "audio_submitting" });
  const taskId = await ctx.client.submitAudio(
    {
      path: tempPath,
      filename: job.source.filename,
      ...optional("speakers", job.options.speakers),
      ...optional("contextText", job.options.contextText),
      ...optional("languageHint", job.options.languageHint),
    },
    ctx.signal,
  );
  const wakeAt = ctx.now() + ctx.schedule.delayMs(0);
  const submitted = await ctx.commit(submitting, { type: "audio_submitted", taskId, wakeAt });
  // The service has the recording: the local copy goes at once.
  await rm(tempPath, { force: true });
  return submitted;
}

async function writing(ctx: StepContext, job: JobIn<"writing">): Promise<Job> {
  checkLimit(ctx, job, ctx.limits.writingMs);
  const { taskId } = job.task;
  if (taskId === undefined) return submitNote(ctx, job);
  const task = await ctx.client.getNoteTask(taskId, ctx.signal);
  if (task.status === "running") {
    const wakeAt = ctx.now() + ctx.schedule.delayMs(job.task.pollAttempt + 1);
    return ctx.commit(job, { type: "note_polled", wakeAt });
  }
  if (task.status === "failed") {
    throw new JobStepError({ code: "task_failed", detail: task.message }, true);
  }
  const { markdown, docx_url: docxUrl } = task.result;
  return ctx.showStatus(
    await ctx.commit(job, { type: "note_written", markdown, docxUrl }),
    "stage",
  );
}

async function submitNote(ctx: StepContext, job: JobIn<"writing">): Promise<Job> {
  const { note } = job;
  let template: { filename: string; data: Uint8Array } | undefined;
  if (note.templateId !== undefined) {
    const stored = await ctx.store.get<StoredTemplate>("templates", note.templateId);
    if (stored === undefined)
      throw new JobStepError({ code: "invalid_input", detail: "template" }, false);
    template = { filename: stored.filename, data: Buffer.from(stored.base64, "base64") };
  }
  const submitting = await ctx.commit(job, { type: "note_submitting" });
  const taskId = await ctx.client.submitDialog(
    {
      dialog: note.dialog,
      ...(note.speakerMap.length === 0 ? {} : { speakerMap: note.speakerMap }),
      ...optional("contextText", note.contextText),
      ...optional("template", template),
    },
    ctx.signal,
  );
  const wakeAt = ctx.now() + ctx.schedule.delayMs(0);
  return ctx.showStatus(
    await ctx.commit(submitting, { type: "note_submitted", taskId, wakeAt }),
    "stage",
  );
}

async function delivering(ctx: StepContext, start: JobIn<"delivering">): Promise<Job> {
  let job = await reconcile(ctx, start);
  const docxOnDisk = job.docxPath !== undefined && (await fileExists(job.docxPath));
  if (!docxOnDisk && job.docxFileId === undefined) {
    // Not fetched yet, or fetched on a disk this process does not have: the link is good
    // for 24 hours, so fetch it (again).
    const path = join(ctx.tempDir, `${job.id}.docx`);
    try {
      await ctx.client.downloadDocx(job.docxUrl, path, ctx.signal);
    } catch (error) {
      if (!(error instanceof NoteTakerLinkExpiredError)) throw error;
      // The link died before we fetched it: write the note again from the stored inputs.
      if (job.relinks >= MAX_RELINKS) throw new JobStepError({ code: "docx_expired" }, true);
      ctx.logger.warn({ jobId: job.id }, "DOCX link expired before download; rewriting the note");
      return ctx.commit(job, { type: "docx_link_expired" });
    }
    job = (await ctx.commit(job, { type: "docx_downloaded", docxPath: path })) as typeof job;
  }
  const parts = ctx.gateway.splitNote(job.markdown);
  for (let index = job.postedParts; index < parts.length; index++) {
    job = (await ctx.commit(job, { type: "part_posting", index })) as typeof job;
    await ctx.gateway.postNotePart(job, parts[index] ?? "", index, parts.length);
    job = (await ctx.commit(job, { type: "part_posted", index })) as typeof job;
  }
  const { docxPath } = job;
  if (job.docxFileId === undefined && docxPath !== undefined) {
    job = (await ctx.commit(job, { type: "docx_uploading" })) as typeof job;
    const fileId = await ctx.gateway.uploadDocx(job, docxPath, ctx.signal);
    job = (await ctx.commit(job, { type: "docx_uploaded", fileId })) as typeof job;
  }
  if (docxPath !== undefined) await rm(docxPath, { force: true });
  return ctx.showStatus(await ctx.commit(job, { type: "delivered" }), "stage");
}

/** After a crash mid-post, asks the thread what is already there instead of guessing. */
async function reconcile(ctx: StepContext, job: JobIn<"delivering">): Promise<JobIn<"delivering">> {
  if (job.postingPart === undefined && job.uploadingDocx !== true) return job;
  const found = await ctx.gateway.findDelivered(job);
  const postedParts = Math.max(job.postedParts, ...found.parts.map((index) => index + 1));
  ctx.logger.info({ jobId: job.id, postedParts, docx: found.docxFileId }, "delivery reconciled");
  const event = { type: "delivery_reconciled", postedParts, docxFileId: found.docxFileId } as const;
  return (await ctx.commit(job, event)) as JobIn<"delivering">;
}

function checkLimit(ctx: StepContext, job: ActiveJob, limitMs: number): void {
  if (ctx.now() - job.stageStartedAt > limitMs) {
    throw new JobStepError({ code: "timeout", detail: String(Math.round(limitMs / 60_000)) }, true);
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
