import type { Logger } from "pino";
import type { TempFiles } from "../files/temp-files.ts";
import { type ActiveJob, isActive, type Job } from "../model/job.ts";
import { type HeldLease, LeaseLost } from "../persistence/with-lease.ts";
import type { MediaPort } from "../ports.ts";
import { isTransfer, runStep } from "../stages/index.ts";
import type { StageObserver } from "./apply-event.ts";
import { applyRequests } from "./apply-requests.ts";
import type { FailurePolicyOptions } from "./failure-policy.ts";
import type { JobPorts, StageLimits, StepContext } from "./step.ts";
import { createStepContext } from "./step-context.ts";
import { afterFailedStep, RequestWaiting } from "./step-failure.ts";

/** What the step loop works with: the runner's ports, policies and shared state. */
export interface StepLoopDeps extends JobPorts {
  media: MediaPort | undefined;
  limits: StageLimits;
  failurePolicy: FailurePolicyOptions;
  tempDir: string;
  now: () => number;
  statusThrottleMs: number;
  onStageChange: StageObserver | undefined;
  files: TempFiles;
  /** When each job's status message was last drawn (shared across steps, for throttling). */
  lastStatusAt: Map<string, number>;
  /** The step under way of each job driven here: aborted when something is asked of it. */
  controllers: Map<string, AbortController>;
  stopped: () => boolean;
  kick: (jobId: string) => void;
  /** Draws what a request applied here did, at once (see `JobRunner.settle`). */
  show: (job: Job) => void;
}

/**
 * A job's steps while this process holds its lease: what was asked of the job first, then
 * its steps back to back while it is due.
 */
export class StepLoop {
  readonly #d: StepLoopDeps;

  constructor(deps: StepLoopDeps) {
    this.#d = deps;
  }

  /**
   * Runs steps back to back while the job is due, each under a signal of its own: aborted
   * when something is asked of the job (here) or the lease is lost (the step must then save
   * nothing). What was asked is applied before each step. Each step's save puts the job's
   * next due time in the queue; where no save does, this does.
   */
  async run(id: string, lease: HeldLease, first: Job | undefined): Promise<void> {
    const { repo, store, controllers } = this.#d;
    for (let round = 0; round < 50 && !this.#d.stopped(); round++) {
      const read = round === 0 ? first : await repo.get(id);
      // Asked while another step or nobody held the job (a kick brought it here): first.
      const asked = await applyRequests({ ...this.#d, kick: this.#d.kick }, id, read);
      const job = asked.job;
      if (asked.applied > 0 && job !== undefined) this.#afterRequests(job);
      if (job === undefined || !isActive(job)) {
        if (job === undefined) await repo.forgetActive(id);
        else await store.unschedule(id);
        this.#d.lastStatusAt.delete(id);
        return;
      }
      // Waiting for a person, or not due yet (past the lease, by the claim): queued again.
      if (job.wakeAt === undefined) return void (await store.unschedule(id));
      if (job.wakeAt > this.#d.now()) return void (await store.schedule(id, job.wakeAt));
      const controller = new AbortController();
      controllers.set(id, controller);
      const signal = AbortSignal.any([controller.signal, lease.signal]);
      const next = await this.#stepSafely(job, signal, () => lease.renew());
      controllers.delete(id);
      if (signal.reason instanceof LeaseLost) return;
      // Ended: its folder goes (empty by now, but for what a failure left).
      if (!isActive(next)) await this.#d.files.removeAllOf(id);
      if (!isActive(next) || next.wakeAt === undefined || next.wakeAt > this.#d.now()) {
        // Asked for during the step (its kick undone by the step's save: a Retry as the job
        // failed, say), or the step gave the job up for it: applied in the next round, else
        // nothing would ever apply it.
        if (signal.reason instanceof RequestWaiting) continue;
        if ((await repo.requests.list(id)).length === 0) return;
        continue;
      }
      // Due now, in the other queue: it goes again once this run ends.
      if (isTransfer(next) !== isTransfer(job)) return this.#d.kick(id);
    }
    this.#d.kick(id);
  }

  /** What a request applied here did: drawn at once; an ended job's temp files go. */
  #afterRequests(job: Job): void {
    this.#d.show(job);
    if (isActive(job)) return;
    this.#d.files.removeAllOf(job.id).catch((error: unknown) => {
      this.#d.logger.warn({ err: error, jobId: job.id }, "could not remove temp files");
    });
  }

  async #stepSafely(job: ActiveJob, signal: AbortSignal, holdLease: () => Promise<void>) {
    const logger = this.#d.logger.child({ jobId: job.id, stage: job.stage });
    const ctx = this.#context(logger, signal, holdLease);
    try {
      return await runStep(ctx, job);
    } catch (error) {
      const deps = { ...this.#d, stopped: this.#d.stopped() };
      return afterFailedStep(deps, { ctx, job, error, signal });
    }
  }

  #context(logger: Logger, signal: AbortSignal, holdLease: () => Promise<void>): StepContext {
    return createStepContext({
      ...this.#d,
      logger,
      signal,
      holdLease,
      requestWaiting: async (id) => (await this.#d.repo.requests.list(id)).length > 0,
      onRequest: () => new RequestWaiting(),
      stopping: this.#d.stopped,
    });
  }
}
