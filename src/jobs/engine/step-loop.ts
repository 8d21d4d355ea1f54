import { optional } from "../../util/optional.ts";
import type { TempFiles } from "../files/temp-files.ts";
import { type ActiveJob, isActive, type Job } from "../model/job.ts";
import { type HeldLease, LeaseLost } from "../persistence/with-lease.ts";
import { applyRequests } from "./apply-event.ts";
import { decideFailure, type FailurePolicyOptions, lostInstall } from "./failure-policy.ts";
import {
  createStepContext,
  RequestWaiting,
  type StepContext,
  type StepDeps,
} from "./step-context.ts";
import { isTransfer, runStep } from "./steps.ts";

export interface StepLoopDeps extends StepDeps {
  failurePolicy: FailurePolicyOptions;
  files: TempFiles;
  /** Aborted when something is asked of the job. */
  controllers: Map<string, AbortController>;
  show: (job: Job) => void;
}

export class StepLoop {
  readonly #d: StepLoopDeps;

  constructor(deps: StepLoopDeps) {
    this.#d = deps;
  }

  /**
   * Runs steps back to back while the job is due, each under a signal aborted by a request or a
   * lost lease; requests are applied before each step.
   */
  async run(id: string, lease: HeldLease, first: Job | undefined): Promise<void> {
    const { repo, store, controllers } = this.#d;
    for (let round = 0; round < 50 && !this.#d.stopped(); round++) {
      if (lease.signal.aborted) return;
      const read = round === 0 ? first : await repo.get(id);
      // Asked while no step here held the job: first.
      const asked = await applyRequests(this.#d, id, read);
      const job = asked.job;
      if (asked.applied > 0 && job !== undefined) this.#afterRequests(job);
      if (job === undefined || !isActive(job)) {
        if (job === undefined) await repo.forgetActive(id);
        else await store.unschedule(id);
        this.#d.lastStatusAt.delete(id);
        return;
      }
      // Waiting for a person, or not due yet: queued again.
      if (job.wakeAt === undefined) return void (await store.unschedule(id));
      if (job.wakeAt > this.#d.now()) return void (await store.schedule(id, job.wakeAt));
      const controller = new AbortController();
      controllers.set(id, controller);
      const signal = AbortSignal.any([controller.signal, lease.signal]);
      const next = await this.#stepSafely(job, signal, () => lease.renew());
      controllers.delete(id);
      if (signal.reason instanceof LeaseLost) return;
      if (!isActive(next)) await this.#d.files.removeAllOf(id);
      if (!isActive(next) || next.wakeAt === undefined || next.wakeAt > this.#d.now()) {
        // A request made during the step (its kick undone by the step's
        // save) is applied next round, else nothing would apply it.
        if (signal.reason instanceof RequestWaiting) continue;
        if ((await repo.requests.list(id)).length === 0) return;
        continue;
      }
      // Due now, in the other queue: it goes again once this run ends.
      if (isTransfer(next) !== isTransfer(job)) return this.#d.kick(id);
    }
    this.#d.kick(id);
  }

  #afterRequests(job: Job): void {
    this.#d.show(job);
    if (isActive(job)) return;
    this.#d.files.removeAllOf(job.id).catch((error: unknown) => {
      this.#d.logger.warn({ err: error, jobId: job.id }, "could not remove temp files");
    });
  }

  async #stepSafely(job: ActiveJob, signal: AbortSignal, holdLease: () => Promise<void>) {
    const logger = this.#d.logger.child({ jobId: job.id, stage: job.stage });
    const ctx = createStepContext(this.#d, { logger, signal, holdLease });
    try {
      return await runStep(ctx, job);
    } catch (error) {
      const deps = { ...this.#d, stopped: this.#d.stopped() };
      return afterFailedStep(deps, { ctx, job, error, signal });
    }
  }
}

/**
 * What becomes of a job whose step threw: nothing when the lease or record is gone or a request
 * gave it up; otherwise as the failure policy says.
 */
async function afterFailedStep(
  deps: Pick<StepLoopDeps, "repo" | "files" | "failurePolicy" | "now"> & { stopped: boolean },
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
