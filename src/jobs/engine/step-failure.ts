import { optional } from "../../util/optional.ts";
import type { TempFiles } from "../files/temp-files.ts";
import { type ActiveJob, isActive, type Job } from "../model/job.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import { LeaseLost } from "../persistence/with-lease.ts";
import { decideFailure, type FailurePolicyOptions, lostInstall } from "./failure-policy.ts";
import type { StepContext } from "./step.ts";

/**
 * Something was asked of the job (a person's command, a stop) while a step held it: the step
 * gives the job up at once, and the runner applies what was asked before anything else.
 */
export class RequestWaiting extends Error {
  constructor() {
    super("A request is waiting for the job.");
    this.name = this.constructor.name;
  }
}

export interface StepFailureDeps {
  repo: JobRepository;
  files: TempFiles;
  failurePolicy: FailurePolicyOptions;
  now: () => number;
  /** The runner is shutting down: an aborted step is left for the next start. */
  stopped: boolean;
}

/**
 * What becomes of a job whose step threw: nothing when the lease was lost (the new holder
 * decides) or the record is gone (the workspace removed the app); nothing either when the
 * step gave the job up for a request (a person's command, a stop: the runner applies it
 * next); otherwise as the failure policy says — tried again later, or failed with a
 * sentence the person can read and its temp files removed.
 */
export async function afterFailedStep(
  deps: StepFailureDeps,
  failed: { ctx: StepContext; job: ActiveJob; error: unknown; signal: AbortSignal },
): Promise<Job> {
  const { ctx, job, error, signal } = failed;
  const { logger } = ctx;
  if (error instanceof LeaseLost || signal.reason instanceof LeaseLost) {
    logger.warn("lease lost mid-step; leaving the job to its new holder");
    return job;
  }
  const current = await deps.repo.get(job.id);
  if (current === undefined) {
    logger.warn({ err: error }, "job record gone mid-step; dropping the job");
    await deps.files.removeAllOf(job.id);
    return job;
  }
  if (!isActive(current)) return current;
  if (error instanceof RequestWaiting || signal.reason instanceof RequestWaiting) return current;
  if (deps.stopped && signal.aborted) return current;
  const decision = decideFailure(error, current.attempts, deps.failurePolicy);
  if (decision.kind === "retry_later") {
    const { delayMs, waiting } = decision;
    logger.warn({ err: error, delayMs, waiting }, "step failed; will try again");
    const wakeAt = deps.now() + delayMs;
    const later = await ctx.commit(current, {
      type: "retry_later",
      wakeAt,
      ...optional("waiting", waiting),
    });
    // The person sees why nothing moves (once per reason: an unchanged message is not drawn).
    return waiting === undefined ? later : ctx.showStatus(later, "stage");
  }
  // A lost install stops all its jobs at once, and the token source said why, once: each
  // job's end is a record, not another error.
  const lost = lostInstall(error);
  logger[lost ? "warn" : "error"]({ err: error, failure: decision.failure }, "job failed");
  await deps.files.removeNamedBy(current);
  const done = await ctx.commit(current, {
    type: "failed",
    failure: decision.failure,
    retryable: decision.retryable,
  });
  // Without a token the status message cannot be drawn: the record keeps the sentence, and
  // App Home shows it once the app is installed again.
  return lost ? done : ctx.showStatus(done, "stage");
}
