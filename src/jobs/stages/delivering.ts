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
 * The note is written: its DOCX is fetched, its parts posted and the DOCX uploaded, each
 * call checkpointed (intent before, result after) so a crash never posts anything twice.
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
  // Reading the thread is no progress: `attempts` stays, so a post that keeps failing still
  // reaches the failure policy's limit. Finding there what the record did not know is: a
  // post whose answer was lost went through, and counts as a success.
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

/** Whether the thread held more of the delivery than the record knew. */
function foundMore(job: Delivering, found: EventOf<"delivery_reconciled">): boolean {
  const transcript = found.transcriptFileIds ?? [];
  return (
    found.postedParts > job.postedParts ||
    (found.docxFileId !== undefined && job.docxFileId === undefined) ||
    (transcript.length > 0 && job.transcript?.delivery !== job.delivery)
  );
}

/** Fetches the DOCX, posts the parts not yet posted, uploads the DOCX, and finishes. */
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
  // The people are mentioned before the split, so each part is measured as it is posted.
  // (Both come from the job and the channel's settings: a resumed run splits the same way
  // unless someone turned "people named" on or off in between.)
  const parts = ctx.gateway.splitNote(markdown, people);
  for (let index = job.postedParts; index < parts.length; index++) {
    // Shutting down: the parts posted so far are checkpointed, the rest goes from the next
    // start (the job is due at once), never half a note into the shutdown's time limit.
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
 * The note as a canvas the channel (or, in a direct message, the person) can read: made
 * once (a Regenerate edits it), each call checkpointed — the intent before
 * `canvases.create`, so a run that crashed before saving the canvas id first looks for the
 * canvas it made rather than making a second.
 *
 * The note is in the thread already, and a canvas is extra: when Slack will not have one —
 * a refusal the gateway names (the workspace, its plan, a scope), or any other answer to a
 * canvas call that trying again cannot change — the reason is kept on the job, the status
 * message says it once, and the job ends done. No Retry repeats it (a Regenerate asks
 * again). Transient trouble (rate limits, Slack's 5xx, the network) is thrown instead, so
 * the step is tried again within its failure policy.
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

/** What a canvas call came to when Slack refused it for good. */
const REFUSED = Symbol("refused");

/**
 * A canvas call's result, or {@link REFUSED} when it failed in a way trying again cannot
 * change (a `SlackPortError` that is not transient: Slack's `ok: false` with an error no one
 * listed, an answer without what it should hold…). Transient errors and anything that is
 * not Slack's are thrown as they are.
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
 * Uploads this delivery's transcript unless it is there, checkpointed like the DOCX; an
 * earlier delivery's transcript (names since changed by Regenerate) is then deleted, so
 * the thread holds one. A failed delete is only logged: an extra old file is no loss.
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

/** The speakers named by picking a member, with the names the note was written with. */
export function peopleOf(note: NoteInputs): NotePerson[] {
  const members = note.members ?? {};
  return note.speakerMap.flatMap((entry) => {
    const userId = members[entry.speaker_id];
    return userId === undefined ? [] : [{ name: entry.name, userId }];
  });
}
