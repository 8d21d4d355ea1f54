import { z } from "zod";
import { NoteTakerLinkExpiredError } from "../../notetaker/index.ts";
import { dialogSchema } from "../../notetaker/schemas.ts";
import { loadStored } from "../blobs.ts";
import { readChannelSettings } from "../channel-settings.ts";
import { JobStepError } from "../failure-policy.ts";
import type { NotePerson } from "../gateway.ts";
import type { Job, JobIn, NoteInputs } from "../job.ts";
import type { StepContext } from "../step.ts";
import { TempFiles } from "../temp-files.ts";
import {
  advance,
  isFile,
  jobFile,
  MAX_RELINKS,
  type Reducers,
  removeJobFile,
  startWriting,
} from "./kit.ts";

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
  // The link died before the DOCX was fetched: the note is written again (before any part
  // is posted, a few times at most).
  docx_link_expired: (job, _event, now) =>
    job.postedParts > 0 || job.relinks >= MAX_RELINKS
      ? undefined
      : startWriting(job, job.note, job.relinks + 1, job.delivery, now),
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
  // reaches the failure policy's limit.
  delivery_reconciled: (
    { postingPart: _p, uploadingDocx: _u, docxFileId: _d, uploadingTranscript: _t, ...job },
    event,
    now,
  ) => ({
    ...job,
    wakeAt: now,
    postedParts: event.postedParts,
    ...(event.docxFileId === undefined ? {} : { docxFileId: event.docxFileId }),
    ...(event.transcriptFileIds === undefined || event.transcriptFileIds.length === 0
      ? {}
      : { transcript: { delivery: job.delivery, fileIds: event.transcriptFileIds } }),
  }),
  delivered: ({ docxUrl: _u, docxPath: _p, relinks: _r, wakeAt: _w, ...job }, _event, now) => ({
    ...job,
    stage: "done",
    finishedAt: now,
  }),
};

/** Fetches the DOCX, posts the parts not yet posted, uploads the DOCX, and finishes. */
export async function deliveringStep(ctx: StepContext, start: Delivering): Promise<Job> {
  let job = await reconcile(ctx, start);
  const fetched = await fetchDocx(ctx, job);
  if (fetched.stage !== "delivering") return fetched;
  job = fetched;
  const settings = await readChannelSettings(ctx.store, job.origin.teamId, job.origin.channelId);
  const people = settings.mentions ? peopleOf(job.note) : [];
  const markdown = await loadStored(ctx.store, job.markdown, z.string());
  const parts = ctx.gateway.splitNote(markdown);
  for (let index = job.postedParts; index < parts.length; index++) {
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
 * The note as a canvas the channel can read: made once (a Regenerate edits it), each call
 * checkpointed — the intent before `canvases.create`, so a run that crashed before saving
 * the canvas id first looks for the canvas it made rather than making a second. A
 * workspace that refuses canvases keeps the thread delivery; the reason is kept and shown.
 */
async function deliverCanvas(
  ctx: StepContext,
  start: Delivering,
  markdown: string,
  people: readonly NotePerson[],
): Promise<Delivering> {
  let job = start;
  if (job.canvas !== undefined && job.canvas.delivery !== job.delivery) {
    const edited = await ctx.gateway.editCanvas(job, job.canvas.id, markdown, people);
    if (!edited.ok && "gone" in edited) job = await ctx.update(job, { type: "canvas_gone" });
    else if (!edited.ok) return ctx.update(job, { type: "canvas_refused", reason: edited.refused });
    else job = await ctx.update(job, { type: "canvas_updated" });
  }
  if (job.canvas === undefined && job.creatingCanvasAt !== undefined) {
    const found = await ctx.gateway.findCanvas(job, job.creatingCanvasAt);
    if (found !== undefined)
      job = await ctx.update(job, { type: "canvas_created", canvasId: found });
  }
  if (job.canvas === undefined) {
    job = await ctx.update(job, { type: "canvas_creating", at: ctx.now() });
    const made = await ctx.gateway.createCanvas(job, markdown, people);
    if (!made.ok) return ctx.update(job, { type: "canvas_refused", reason: made.refused });
    job = await ctx.update(job, { type: "canvas_created", canvasId: made.canvasId });
  }
  const canvas = job.canvas;
  if (canvas !== undefined && canvas.url === undefined) {
    const url = await ctx.gateway.shareCanvas(job, canvas.id);
    job = await ctx.update(job, { type: "canvas_shared", url });
  }
  return job;
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
    await ctx.gateway.deleteFile(fileId).catch((error: unknown) => {
      ctx.logger.warn({ err: error, fileId }, "could not delete the earlier transcript");
    });
  }
  return job;
}

/**
 * Fetches the DOCX unless it is on this disk or already uploaded: its link is good for
 * 24 hours, and another replica's disk is not this one. An expired link rewrites the note.
 */
async function fetchDocx(ctx: StepContext, job: Delivering): Promise<Job> {
  const onDisk = job.docxPath !== undefined && (await isFile(job.docxPath));
  if (onDisk || job.docxFileId !== undefined) return job;
  const path = jobFile(ctx, job, "notes.docx");
  await TempFiles.makeFolderFor(path);
  try {
    await ctx.client.downloadDocx(job.docxUrl, path, ctx.signal);
  } catch (error) {
    if (!(error instanceof NoteTakerLinkExpiredError)) throw error;
    if (job.relinks >= MAX_RELINKS) throw new JobStepError({ code: "docx_expired" }, true);
    ctx.logger.warn({ jobId: job.id }, "DOCX link expired before download; rewriting the note");
    return ctx.commit(job, { type: "docx_link_expired" });
  }
  return ctx.update(job, { type: "docx_downloaded", docxPath: path });
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
