import { z } from "zod";
import { dialogSchema } from "../../notetaker/schemas.ts";
import { optional } from "../../util/optional.ts";
import type { StepContext } from "../engine/step.ts";
import type { EventOf } from "../model/events.ts";
import type { Job, JobIn } from "../model/job.ts";
import { advance, commonOf, enter, type Reducers } from "../model/job-records.ts";
import { loadStored } from "../persistence/blobs.ts";
import { fetchDocx, relinkOrUndefined } from "./docx.ts";

type Reviewing = JobIn<"reviewing">;

export const REMIND_BEFORE_MS = 24 * 60 * 60_000;

/**
 * Review before posting: the note goes first to its starter's DM (a first message with the buttons,
 * the parts, DOCX and transcript in its thread, checkpointed as in delivery), then waits for Post,
 * Discard or Change names. It wakes only to remind a day before it expires, and to expire.
 */
export const reviewingReducers: Reducers<"reviewing"> = {
  docx_downloaded: (job, event, now) => advance(job, now, { docxPath: event.docxPath }),
  docx_link_expired: (job, _event, now) => relinkOrUndefined(job, now),
  review_opening: (job, event) => ({ ...job, openingAt: event.at }),
  review_opened: ({ openingAt: _, ...job }, event, now) =>
    advance(job, now, { review: { channelId: event.channelId, ts: event.ts }, opened: true }),
  part_posting: (job, event) => ({ ...job, postingPart: event.index }),
  part_posted: ({ postingPart: _, ...job }, event, now) =>
    advance(job, now, { postedParts: Math.max(job.postedParts, event.index + 1) }),
  docx_uploading: (job) => ({ ...job, uploadingDocx: true }),
  docx_uploaded: ({ uploadingDocx: _, ...job }, event, now) =>
    advance(job, now, { docxFileId: event.fileId }),
  transcript_uploading: (job) => ({ ...job, uploadingTranscript: true }),
  transcript_uploaded: ({ uploadingTranscript: _, ...job }, event, now) =>
    advance(job, now, { transcriptFileIds: event.fileIds }),
  // As in delivery: reading the thread is no progress, finding a lost post's success is.
  delivery_reconciled: (start, event, now) => {
    const { postingPart: _p, uploadingDocx: _u, uploadingTranscript: _t, ...job } = start;
    const transcript = event.transcriptFileIds ?? [];
    return {
      ...job,
      wakeAt: now,
      attempts: foundMore(start, event) ? 0 : job.attempts,
      postedParts: event.postedParts,
      ...optional("docxFileId", event.docxFileId ?? job.docxFileId),
      ...(transcript.length === 0 ? {} : { transcriptFileIds: transcript }),
    };
  },
  // Ready, or woken before its time: asleep until the reminder, then the expiry.
  review_ready: (job, event) => advance(job, event.wakeAt, { ready: true }),
  review_reminding: (job, event) => ({ ...job, remindingAt: event.at }),
  review_reminded: ({ remindingAt: _, ...job }, event) =>
    advance(job, event.wakeAt, { reminded: true }),
  // Only a note the person could read in full may be posted or discarded.
  review_posted: (job, _event, now) =>
    job.ready === true
      ? enter(job, "delivering", now, {
          note: job.note,
          markdown: job.markdown,
          docxUrl: job.docxUrl,
          relinks: job.relinks,
          delivery: job.delivery,
          ...optional("docxPath", job.docxPath),
          postedParts: 0,
        })
      : undefined,
  review_discarded: (job, event, now) =>
    job.ready === true ? discarded(job, event.by, now) : undefined,
  review_expired: (job, _event, now) => discarded(job, undefined, now),
};

function discarded(job: Reviewing, by: string | undefined, now: number): Job {
  return { ...commonOf(job), stage: "discarded", ...optional("discardedBy", by), finishedAt: now };
}

function foundMore(job: Reviewing, found: EventOf<"delivery_reconciled">): boolean {
  return (
    found.postedParts > job.postedParts ||
    (found.docxFileId !== undefined && job.docxFileId === undefined) ||
    ((found.transcriptFileIds ?? []).length > 0 && job.transcriptFileIds === undefined)
  );
}

export async function reviewingStep(ctx: StepContext, start: Reviewing): Promise<Job> {
  if (ctx.now() >= start.expiresAt) return expire(ctx, start);
  if (start.ready === true) return remindOrSleep(ctx, start);
  let job = await reconcile(ctx, await openReview(ctx, start));
  const fetched = await fetchDocx(ctx, job);
  if (fetched.stage !== "reviewing") return fetched;
  job = fetched;
  // Nobody is mentioned in a review: the people named are pinged once it is posted.
  const parts = ctx.gateway.splitNote(await loadStored(ctx.store, job.markdown, z.string()));
  for (let index = job.postedParts; index < parts.length; index++) {
    if (ctx.stopping()) return job;
    job = await ctx.update(job, { type: "part_posting", index });
    await ctx.gateway.postNotePart(inReview(job), parts[index] ?? "", index, parts.length, []);
    job = await ctx.update(job, { type: "part_posted", index });
  }
  const { docxPath } = job;
  // The DOCX stays on this disk: the thread gets its own upload once the note is posted.
  if (job.docxFileId === undefined && docxPath !== undefined) {
    job = await ctx.update(job, { type: "docx_uploading" });
    const fileId = await ctx.gateway.uploadDocx(inReview(job), docxPath, ctx.signal);
    job = await ctx.update(job, { type: "docx_uploaded", fileId });
  }
  if (job.transcriptFileIds === undefined) {
    job = await ctx.update(job, { type: "transcript_uploading" });
    const dialog = await loadStored(ctx.store, job.note.dialog, dialogSchema);
    const { speakerMap } = job.note;
    const fileIds = await ctx.gateway.uploadTranscript(
      inReview(job),
      dialog,
      speakerMap,
      ctx.signal,
    );
    job = await ctx.update(job, { type: "transcript_uploaded", fileIds });
  }
  await ctx.gateway.review.show(job, "ready");
  job = await ctx.update(job, { type: "review_ready", wakeAt: nextWake(job) });
  return ctx.showStatus(job, "stage");
}

/**
 * Posted once: an earlier review is marked replaced, and the intent
 * is saved so a run after a crash looks for the message first.
 */
async function openReview(ctx: StepContext, job: Reviewing): Promise<Reviewing> {
  if (job.opened === true) return job;
  let opening = job;
  if (job.openingAt === undefined) {
    if (job.review !== undefined) {
      await ctx.gateway.review.show(job, "replaced").catch((error: unknown) => {
        ctx.logger.warn({ err: error, jobId: job.id }, "could not mark the earlier review");
      });
    }
    opening = await ctx.update(job, { type: "review_opening", at: ctx.now() });
  }
  const place = await ctx.gateway.review.open(opening, job.openingAt);
  return ctx.update(opening, { type: "review_opened", ...place });
}

async function reconcile(ctx: StepContext, job: Reviewing): Promise<Reviewing> {
  const unsure =
    job.postingPart !== undefined || job.uploadingDocx === true || job.uploadingTranscript === true;
  if (!unsure) return job;
  const found = await ctx.gateway.findDelivered(inReview(job));
  const postedParts = Math.max(job.postedParts, ...found.parts.map((index) => index + 1));
  ctx.logger.info({ jobId: job.id, postedParts }, "review reconciled");
  return ctx.update(job, {
    type: "delivery_reconciled",
    postedParts,
    docxFileId: found.docxFileId,
    transcriptFileIds: found.transcriptFileIds,
  });
}

/**
 * The gateway posts where the origin says, so a review's posts go
 * through the same calls (with the metadata `findDelivered` reads back).
 */
export function inReview(job: Reviewing): Reviewing {
  const { review } = job;
  if (review === undefined) throw new Error(`job ${job.id} has no review to post in`);
  return { ...job, origin: { ...job.origin, channelId: review.channelId, threadTs: review.ts } };
}

/** Undefined once reminded, or when the review is too short for one. */
function remindAt(job: Reviewing): number | undefined {
  const at = job.expiresAt - REMIND_BEFORE_MS;
  return job.reminded === true || at <= job.stageStartedAt ? undefined : at;
}

function nextWake(job: Reviewing): number {
  return remindAt(job) ?? job.expiresAt;
}

async function remindOrSleep(ctx: StepContext, job: Reviewing): Promise<Job> {
  const at = remindAt(job);
  if (at === undefined || ctx.now() < at) {
    return ctx.commit(job, { type: "review_ready", wakeAt: nextWake(job) });
  }
  const since = job.remindingAt;
  const reminding =
    since === undefined ? await ctx.update(job, { type: "review_reminding", at: ctx.now() }) : job;
  await ctx.gateway.review.remind(reminding, since);
  return ctx.commit(reminding, { type: "review_reminded", wakeAt: job.expiresAt });
}

async function expire(ctx: StepContext, job: Reviewing): Promise<Job> {
  if (job.review !== undefined && job.opened === true) {
    await ctx.gateway.review.show(job, "expired").catch((error: unknown) => {
      ctx.logger.warn({ err: error, jobId: job.id }, "could not mark the review expired");
    });
  }
  return ctx.showStatus(await ctx.commit(job, { type: "review_expired" }), "stage");
}
