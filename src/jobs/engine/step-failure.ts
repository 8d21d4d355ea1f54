import { optional } from "../../util/optional.ts";
import type { TempFiles } from "../files/temp-files.ts";
import { type ActiveJob, isActive, type Job } from "../model/job.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import { LeaseLost } from "../persistence/with-lease.ts";
import { decideFailure, type FailurePolicyOptions, lostInstall } from "./failure-policy.ts";
import type { StepContext } from "./step.ts";

/** Thrown to give the job up when something was asked of it; the runner applies it next. */
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
  stopped: boolean;
}

/**
 * What becomes of a job whose step threw: nothing when the lease or record is gone or a request
 * gave it up; otherwise as the failure policy says.
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
    // Drawn once per reason: an unchanged message is not redrawn.
    return waiting === undefined ? later : ctx.showStatus(later, "stage");
  }
  // The token source already said why, once: each job's end is a record, not another error.
  const lost = lostInstall(error);
  logger[lost ? "warn" : "error"]({ err: error, failure: decision.failure }, "job failed");
  await deps.files.removeNamedBy(current);
  const done = await ctx.commit(current, {
    type: "failed",
    failure: decision.failure,
    retryable: decision.retryable,
  });
  // Without a token nothing can be drawn: App Home shows the sentence once reinstalled.
  return lost ? done : ctx.showStatus(done, "stage");
}
