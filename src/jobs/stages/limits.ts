import { JobStepError } from "../failure-policy.ts";
import type { ActiveJob } from "../job.ts";
import type { StepContext } from "../step.ts";

/**
 * Fails the job (retryably) once its stage has run longer than `limitMs`, on the store's
 * clock: a wall clock set an hour forward does not time a transcription out.
 */
export function checkLimit(ctx: StepContext, job: ActiveJob, limitMs: number): void {
  if (ctx.now() - job.stageStartedAt > limitMs) {
    throw new JobStepError({ code: "timeout", detail: String(Math.round(limitMs / 60_000)) }, true);
  }
}
