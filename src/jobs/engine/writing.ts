import { dialogSchema } from "../../notetaker/schemas.ts";
import { speakerMapOf } from "../../notetaker/wire.ts";
import { optional } from "../../util/optional.ts";
import type { Job, JobIn } from "../model/job.ts";
import { loadStored } from "../persistence/blobs.ts";
import type { StoredTemplate } from "../persistence/templates.ts";
import { JobStepError } from "./failure-policy.ts";
import { checkLimit, type StepContext } from "./step-context.ts";

export async function writingStep(ctx: StepContext, job: JobIn<"writing">): Promise<Job> {
  checkLimit(ctx, job, ctx.limits.writingMs);
  const { taskId } = job.task;
  if (taskId === undefined) return submitNote(ctx, job);
  const task = await ctx.client.getNoteTask(taskId, ctx.signal);
  if (task.status === "running") {
    // As transcribing: led by the note task's progress, when it reports any.
    const now = ctx.now();
    const plan = ctx.schedule.afterRunning({
      attempt: job.task.pollAttempt,
      trail: job.task.trail,
      progress: task.progress,
      now,
    });
    return ctx.commit(job, { type: "note_polled", trail: plan.trail, wakeAt: now + plan.waitMs });
  }
  if (task.status === "failed") {
    throw new JobStepError({ code: "task_failed", detail: task.message }, true);
  }
  const { markdown, docxUrl } = task.result;
  // A note to review waits for its starter as long as the job is kept.
  const review =
    job.options.review === true ? { reviewUntil: ctx.now() + ctx.limits.reviewMs } : {};
  return ctx.showStatus(
    await ctx.commit(job, { type: "note_written", markdown, docxUrl, ...review }),
    "stage",
  );
}

async function submitNote(ctx: StepContext, job: JobIn<"writing">): Promise<Job> {
  const { note } = job;
  let template: { filename: string; data: Uint8Array } | undefined;
  if (note.templateId !== undefined) {
    const stored = await ctx.store.get<StoredTemplate>("templates", note.templateId);
    if (stored === undefined) {
      throw new JobStepError({ code: "invalid_input", detail: "template" }, false);
    }
    template = { filename: stored.filename, data: Buffer.from(stored.base64, "base64") };
  }
  const submitting = await ctx.update(job, { type: "note_submitting" });
  const taskId = await ctx.client.submitDialog(
    {
      dialog: await loadStored(ctx.store, note.dialog, dialogSchema),
      ...(note.speakerMap.length === 0 ? {} : { speakerMap: speakerMapOf(note.speakerMap) }),
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
