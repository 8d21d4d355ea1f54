import { z } from "zod";
import { dialogSchema } from "../../notetaker/schemas.ts";
import { optional } from "../../util/optional.ts";
import { lostInstall } from "../engine/failure-policy.ts";
import type { StepContext } from "../engine/step.ts";
import { removeJobFile } from "../files/job-files.ts";
import type { EventOf } from "../model/events.ts";
import type { CanvasRefusal, Job, JobIn, NoteInputs } from "../model/job.ts";
import { advance, type Reducers } from "../model/job-records.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import { loadStored } from "../persistence/blobs.ts";
import { readChannelSettings } from "../persistence/channel-settings.ts";
import { type NotePerson, SlackPortError } from "../ports.ts";
import { fetchDocx, relinkOrUndefined } from "./docx.ts";

type Delivering = JobIn<"delivering">;

/**
 * Each post and upload is checkpointed (intent before, result after): a crash never posts twice.
 */
export const deliveringReducers: Reducers<"delivering"> = {
  docx_downloaded: (job, event, now) =>
    advance(job, now, {
      docxPath: event.docxPath,
    }),
  docx_link_expired: (job, _event, now) => relinkOrUndefined(job, now),
  part_posting: (job, event) => ({ ...job, postingPart: event.index }),
  part_posted: ({ postingPart: _, ...job }, event, now) =>
    advance(job, now, {
      postedParts: Math.max(job.postedParts, event.index + 1),
    }),
  docx_uploading: (job) => ({ ...job, uploadingDocx: true }),
  canvas_creating: (job, event) => ({ ...job, creatingCanvasAt: event.at }),
  canvas_created: ({ creatingCanvasAt: _, canvasRefused: _r, ...job }, event, now) =>
    advance(job, now, { canvas: { id: event.canvasId, delivery: job.delivery } }),
  canvas_updated: (job, _event, now) =>
    job.canvas === undefined
      ? undefined
      : advance(job, now, { canvas: { ...job.canvas, delivery: job.delivery } }),
  canvas_shared: (job, event, now) =>
    job.canvas === undefined
      ? undefined
      : advance(job, now, { canvas: { ...job.canvas, url: event.url } }),
  // Someone deleted the canvas: the next step makes a new one.
  canvas_gone: ({ canvas: _, ...job }) => job,
  canvas_refused: ({ creatingCanvasAt: _, ...job }, event, now) =>
    advance(job, now, { canvasRefused: event.reason }),
  transcript_uploading: (job) => ({ ...job, uploadingTranscript: true }),
  transcript_uploaded: ({ uploadingTranscript: _, ...job }, event, now) =>
    advance(job, now, {
      transcript: { delivery: job.delivery, fileIds: event.fileIds },
    }),
  docx_uploaded: ({ uploadingDocx: _, ...job }, event, now) =>
    advance(job, now, {
      docxFileId: event.fileId,
    }),
  // Reading the thread is no progress (`attempts` stays, so a failing post still reaches the
  // limit); finding a lost post's success is.
  delivery_reconciled: (start, event, now) => {
    const {
      postingPart: _p,
      uploadingDocx: _u,
      docxFileId: _d,
      uploadingTranscript: _t,
      ...job
    } = start;
    return {
      ...job,
      wakeAt: now,
      attempts: foundMore(start, event) ? 0 : job.attempts,
      postedParts: event.postedParts,
      ...optional("docxFileId", event.docxFileId),
      ...(event.transcriptFileIds === undefined || event.transcriptFileIds.length === 0
        ? {}
        : { transcript: { delivery: job.delivery, fileIds: event.transcriptFileIds } }),
    };
  },
  delivered: ({ docxUrl: _u, docxPath: _p, relinks: _r, wakeAt: _w, ...job }, _event, now) => ({
    ...job,
    stage: "done",
    finishedAt: now,
  }),
};

function foundMore(job: Delivering, found: EventOf<"delivery_reconciled">): boolean {
  const transcript = found.transcriptFileIds ?? [];
  return (
    found.postedParts > job.postedParts ||
    (found.docxFileId !== undefined && job.docxFileId === undefined) ||
    (transcript.length > 0 && job.transcript?.delivery !== job.delivery)
  );
}

export async function deliveringStep(ctx: StepContext, start: Delivering): Promise<Job> {
  let job = await reconcile(ctx, start);
  const fetched = await fetchDocx(ctx, job);
  if (fetched.stage !== "delivering") return fetched;
  job = fetched;
  const settings = await readChannelSettings(
    ctx.store,
    tenantOfOrigin(job.origin),
    job.origin.channelId,
  );
  const people = settings.mentions ? peopleOf(job.note) : [];
  const markdown = await loadStored(ctx.store, job.markdown, z.string());
  // People are mentioned before the split so each part
  // is measured as posted; a resumed run splits alike.
  const parts = ctx.gateway.splitNote(markdown, people);
  for (let index = job.postedParts; index < parts.length; index++) {
    // Shutting down: the rest goes from the next start, never half a note into the time limit.
    if (ctx.stopping()) return job;
    job = await ctx.update(job, { type: "part_posting", index });
    await ctx.gateway.postNotePart(job, parts[index] ?? "", index, parts.length, people);
    job = await ctx.update(job, { type: "part_posted", index });
  }
  const { docxPath } = job;
  if (job.docxFileId === undefined && docxPath !== undefined) {
    job = await ctx.update(job, { type: "docx_uploading" });
    const fileId = await ctx.gateway.uploadDocx(job, docxPath, ctx.signal);
    job = await ctx.update(job, { type: "docx_uploaded", fileId });
  }
  if (docxPath !== undefined) await removeJobFile(ctx, docxPath);
  if (settings.transcript) job = await deliverTranscript(ctx, job);
  if (settings.canvas && job.canvasRefused === undefined) {
    job = await deliverCanvas(ctx, job, markdown, people);
  }
  return ctx.showStatus(await ctx.commit(job, { type: "delivered" }), "stage");
}

/**
 * The note as a canvas, made once (a Regenerate edits it); `canvases.create` is checkpointed, so a
 * crashed run looks for its canvas before making another. A canvas is extra: a refusal is kept on
 * the job and said once, and the job ends done; transient trouble is thrown, to be tried again.
 */
async function deliverCanvas(
  ctx: StepContext,
  start: Delivering,
  markdown: string,
  people: readonly NotePerson[],
): Promise<Delivering> {
  let job = start;
  const refuse = (reason: CanvasRefusal) => ctx.update(job, { type: "canvas_refused", reason });
  const call = <T>(slack: () => Promise<T>) => unlessRefused(ctx, job, slack);
  if (job.canvas !== undefined && job.canvas.delivery !== job.delivery) {
    const { id } = job.canvas;
    const edited = await call(() => ctx.gateway.editCanvas(job, id, markdown, people));
    if (edited === REFUSED) return refuse("refused");
    if (!edited.ok && "gone" in edited) job = await ctx.update(job, { type: "canvas_gone" });
    else if (!edited.ok) return refuse(edited.refused);
    else job = await ctx.update(job, { type: "canvas_updated" });
  }
  const since = job.creatingCanvasAt;
  if (job.canvas === undefined && since !== undefined) {
    const found = await call(() => ctx.gateway.findCanvas(job, since));
    if (found === REFUSED) return refuse("refused");
    if (found !== undefined) {
      job = await ctx.update(job, { type: "canvas_created", canvasId: found });
    }
  }
  if (job.canvas === undefined) {
    job = await ctx.update(job, { type: "canvas_creating", at: ctx.now() });
    const made = await call(() => ctx.gateway.createCanvas(job, markdown, people));
    if (made === REFUSED) return refuse("refused");
    if (!made.ok) return refuse(made.refused);
    job = await ctx.update(job, { type: "canvas_created", canvasId: made.canvasId });
  }
  const canvas = job.canvas;
  if (canvas !== undefined && canvas.url === undefined) {
    const url = await call(() => ctx.gateway.shareCanvas(job, canvas.id));
    if (url === REFUSED) return refuse("refused");
    job = await ctx.update(job, { type: "canvas_shared", url });
  }
  return job;
}

const REFUSED = Symbol("refused");

/**
 * Refused for good: a `SlackPortError` trying again cannot
 * change. Transient errors and anything not Slack's are thrown.
 */
async function unlessRefused<T>(
  ctx: StepContext,
  job: Job,
  slack: () => Promise<T>,
): Promise<T | typeof REFUSED> {
  try {
    return await slack();
  } catch (error) {
    if (!(error instanceof SlackPortError) || error.transient || lostInstall(error)) throw error;
    ctx.logger.warn({ err: error, jobId: job.id }, "no canvas: Slack refused it");
    return REFUSED;
  }
}

/**
 * An earlier delivery's transcript (names since changed) is deleted
 * after, so the thread holds one; a failed delete is only logged.
 */
async function deliverTranscript(ctx: StepContext, start: Delivering): Promise<Delivering> {
  if (start.transcript?.delivery === start.delivery) return start;
  const earlier = start.transcript?.fileIds ?? [];
  let job = await ctx.update(start, { type: "transcript_uploading" });
  const dialog = await loadStored(ctx.store, job.note.dialog, dialogSchema);
  const fileIds = await ctx.gateway.uploadTranscript(job, dialog, job.note.speakerMap, ctx.signal);
  job = await ctx.update(job, { type: "transcript_uploaded", fileIds });
  for (const fileId of earlier) {
    await ctx.gateway.deleteFile(job, fileId).catch((error: unknown) => {
      ctx.logger.warn({ err: error, fileId }, "could not delete the earlier transcript");
    });
  }
  return job;
}

/** After a crash mid-post, asks the thread what is already there instead of guessing. */
async function reconcile(ctx: StepContext, job: Delivering): Promise<Delivering> {
  const unsure =
    job.postingPart !== undefined || job.uploadingDocx === true || job.uploadingTranscript === true;
  if (!unsure) return job;
  const found = await ctx.gateway.findDelivered(job);
  const postedParts = Math.max(job.postedParts, ...found.parts.map((index) => index + 1));
  ctx.logger.info({ jobId: job.id, postedParts, docx: found.docxFileId }, "delivery reconciled");
  return ctx.update(job, {
    type: "delivery_reconciled",
    postedParts,
    docxFileId: found.docxFileId,
    transcriptFileIds: found.transcriptFileIds,
  });
}

export function peopleOf(note: NoteInputs): NotePerson[] {
  const members = note.members ?? {};
  return note.speakerMap.flatMap((entry) => {
    const userId = members[entry.speaker_id];
    return userId === undefined ? [] : [{ name: entry.name, userId }];
  });
}
