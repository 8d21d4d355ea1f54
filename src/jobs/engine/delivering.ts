import { z } from "zod";
import { NoteTakerLinkExpiredError, segmentsOf } from "../../notetaker/index.ts";
import { dialogSchema } from "../../notetaker/schemas.ts";
import { attemptFile, isFile, removeJobFile } from "../files/job-files.ts";
import { TempFiles } from "../files/temp-files.ts";
import type { Job, JobIn } from "../model/job.ts";
import type { CanvasRefusal, NoteInputs } from "../model/job-parts.ts";
import { MAX_RELINKS } from "../model/reducers.ts";
import { tenantOfOrigin } from "../model/tenant.ts";
import { loadStored } from "../persistence/blobs.ts";
import { readChannelSettings } from "../persistence/channel-settings.ts";
import { type NotePerson, SlackPortError } from "../ports.ts";
import { JobStepError, lostInstall } from "./failure-policy.ts";
import type { StepContext } from "./step-context.ts";

type Delivering = JobIn<"delivering">;
/** A written note on its way: to its review's DM (`reviewing.ts`), or to the thread. */
type Carrying = JobIn<"reviewing"> | Delivering;
/** The job as placed where its posts go: the review's DM thread puts a review there. */
type Placed<J> = (job: J) => J;
const inThread = <J>(job: J) => job;

export async function deliveringStep(ctx: StepContext, start: Delivering): Promise<Job> {
  const fetched = await fetchDocx(ctx, await reconcile(ctx, start, inThread));
  if (fetched.stage !== "delivering") return fetched;
  const settings = await readChannelSettings(
    ctx.store,
    tenantOfOrigin(fetched.origin),
    fetched.origin.channelId,
  );
  const people = settings.mentions ? peopleOf(fetched.note) : [];
  const markdown = await loadStored(ctx.store, fetched.markdown, z.string());
  // People are mentioned before the split so each part
  // is measured as posted; a resumed run splits alike.
  const parts = ctx.gateway.splitNote(markdown, people);
  let job = await postNote(ctx, fetched, parts, people, inThread);
  if (job.postedParts < parts.length) return job;
  if (job.docxPath !== undefined) await removeJobFile(ctx, job.docxPath);
  if (settings.transcript && job.transcript?.delivery !== job.delivery) {
    const earlier = job.transcript?.fileIds ?? [];
    job = await uploadTranscript(ctx, job, inThread);
    // So the thread holds one transcript; a failed delete is only logged.
    for (const fileId of earlier) {
      await ctx.gateway.deleteFile(job, fileId).catch((error: unknown) => {
        ctx.logger.warn({ err: error, fileId }, "could not delete the earlier transcript");
      });
    }
  }
  if (settings.canvas && job.canvasRefused === undefined) {
    job = await deliverCanvas(ctx, job, markdown, people);
  }
  return ctx.showStatus(await ctx.commit(job, { type: "delivered" }), "stage");
}

/** After a crash mid-post, asks the thread what is already there instead of guessing. */
export async function reconcile<J extends Carrying>(
  ctx: StepContext,
  job: J,
  placed: Placed<J>,
): Promise<J> {
  const unsure =
    job.postingPart !== undefined || job.uploadingDocx === true || job.uploadingTranscript === true;
  if (!unsure) return job;
  const found = await ctx.gateway.findDelivered(placed(job));
  const postedParts = Math.max(job.postedParts, ...found.parts.map((index) => index + 1));
  ctx.logger.info({ jobId: job.id, postedParts, docx: found.docxFileId }, "delivery reconciled");
  return ctx.update(job, {
    type: "delivery_reconciled",
    postedParts,
    docxFileId: found.docxFileId,
    transcriptFileIds: found.transcriptFileIds,
  });
}

/**
 * Unless on this disk or uploaded: the link is good for
 * 24 hours, and another replica's disk is not this one.
 */
export async function fetchDocx<J extends Carrying>(ctx: StepContext, job: J): Promise<J | Job> {
  const onDisk = job.docxPath !== undefined && (await isFile(job.docxPath));
  if (onDisk || job.docxFileId !== undefined) return job;
  // This attempt's own file: an aborted earlier one may still be unwinding its clean-up.
  const path = attemptFile(ctx, job, "notes", ".docx");
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

/**
 * Posts the parts not yet posted, then uploads the DOCX. Shutting down, it stops between two
 * parts: the rest goes from the next start, never half a note into the time limit.
 */
export async function postNote<J extends Carrying>(
  ctx: StepContext,
  start: J,
  parts: readonly string[],
  people: readonly NotePerson[],
  placed: Placed<J>,
): Promise<J> {
  let job = start;
  for (let index = job.postedParts; index < parts.length; index++) {
    if (ctx.stopping()) return job;
    job = await ctx.update(job, { type: "part_posting", index });
    await ctx.gateway.postNotePart(placed(job), parts[index] ?? "", index, parts.length, people);
    job = await ctx.update(job, { type: "part_posted", index });
  }
  const { docxPath } = job;
  if (job.docxFileId === undefined && docxPath !== undefined) {
    job = await ctx.update(job, { type: "docx_uploading" });
    const fileId = await ctx.gateway.uploadDocx(placed(job), docxPath, ctx.signal);
    job = await ctx.update(job, { type: "docx_uploaded", fileId });
  }
  return job;
}

export async function uploadTranscript<J extends Carrying>(
  ctx: StepContext,
  start: J,
  placed: Placed<J>,
): Promise<J> {
  const job = await ctx.update(start, { type: "transcript_uploading" });
  const dialog = await loadStored(ctx.store, job.note.dialog, dialogSchema);
  const { speakerMap } = job.note;
  const fileIds = await ctx.gateway.uploadTranscript(
    placed(job),
    segmentsOf(dialog),
    speakerMap,
    ctx.signal,
  );
  return ctx.update(job, { type: "transcript_uploaded", fileIds });
}

/**
 * The note as a canvas, made once (a Regenerate edits it); a crashed run looks for its canvas
 * before making another. A canvas is extra: a refusal is said once and the job still ends done.
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

export function peopleOf(note: NoteInputs): NotePerson[] {
  const members = note.members ?? {};
  return note.speakerMap.flatMap((entry) => {
    const userId = members[entry.speakerId];
    return userId === undefined ? [] : [{ name: entry.name, userId }];
  });
}
