import { z } from "zod";
import type { Job, JobIn } from "../model/job.ts";
import { loadStored } from "../persistence/blobs.ts";
import { fetchDocx, postNote, reconcile, uploadTranscript } from "./delivering.ts";
import type { StepContext } from "./step-context.ts";

type Reviewing = JobIn<"reviewing">;

export const REMIND_BEFORE_MS = 24 * 60 * 60_000;

/**
 * Review before posting: the note goes first to its starter's DM, then waits for Post, Discard or
 * Change names, waking only to remind a day before it expires and to expire.
 */
export async function reviewingStep(ctx: StepContext, start: Reviewing): Promise<Job> {
  if (ctx.now() >= start.expiresAt) return expire(ctx, start);
  if (start.ready === true) return remindOrSleep(ctx, start);
  const opened = await reconcile(ctx, await openReview(ctx, start), inReview);
  const fetched = await fetchDocx(ctx, opened);
  if (fetched.stage !== "reviewing") return fetched;
  // Nobody is mentioned in a review: the people named are pinged once it is posted. The DOCX
  // stays on this disk: the thread gets its own upload once the note is posted.
  const parts = ctx.gateway.splitNote(await loadStored(ctx.store, fetched.markdown, z.string()));
  let job = await postNote(ctx, fetched, parts, [], inReview);
  if (job.postedParts < parts.length) return job;
  if (job.transcriptFileIds === undefined) job = await uploadTranscript(ctx, job, inReview);
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
