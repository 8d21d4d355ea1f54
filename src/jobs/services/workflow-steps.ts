import type { Logger } from "pino";
import type { Store } from "../../store/index.ts";
import type { Admission } from "../engine/admission.ts";
import { applyEvent } from "../engine/apply-event.ts";
import { isActive, type Job } from "../model/job.ts";
import { type JobRepository, jobLeaseKey } from "../persistence/job-repository.ts";
import { withLease } from "../persistence/with-lease.ts";
import type { StepCompletion, WorkflowPort } from "../ports.ts";

/**
 * The jobs of Workflow Builder steps whose step is not known to be completed: noted with the
 * job's record (`JobStarts`), taken out once the record says it was completed. Small: only
 * the steps running now.
 */
export const WORKFLOW_STEPS_SET = "workflow-steps";

/** While a step or a command holds the job (it is ending): try for up to 5 s, then the sweep. */
const STEP_LEASE = { ttlMs: 30_000, retry: { tries: 50, delayMs: 100 } };

export interface WorkflowStepsOptions {
  repo: JobRepository;
  store: Store;
  admission: Admission;
  port: WorkflowPort;
  logger: Logger;
  now: () => number;
  /**
   * How often every step not yet completed is looked at: a completion Slack did not answer,
   * or one a stopped replica left, is sent within this time. Default a minute.
   */
  sweepMs?: number;
}

/**
 * Completes the Workflow Builder step of each job a step asked for, once the job has ended:
 * success when its note is delivered, an error with its one sentence when it failed, was
 * canceled or discarded. Exactly once across restarts and replicas: under the job's lease,
 * the record says whether it was completed, and a completion whose answer was lost is found
 * done by the next try (Slack answers that the step is no longer running) rather than sent
 * again.
 */
export class WorkflowSteps {
  readonly #o: Required<WorkflowStepsOptions>;
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  #stopped = false;

  constructor(options: WorkflowStepsOptions) {
    this.#o = { sweepMs: 60_000, ...options };
  }

  /** Told of each stage change: a step's job that ended is completed soon (after the lease). */
  readonly observe = (job: Job): void => {
    if (job.origin.kind !== "workflow" || isActive(job) || job.stepCompleted !== undefined) return;
    void this.settle(job.id);
  };

  /** Looks at every step not completed now, then every `sweepMs`. */
  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    void this.sweep();
    this.#timer = setInterval(() => void this.sweep(), this.#o.sweepMs);
    this.#timer.unref();
  }

  /** No more completions start; those under way end. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#sweeping;
    await Promise.all(this.#inFlight.values());
  }

  /** Resolves once no completion runs in this process (tests wait for this). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0 || this.#sweeping !== undefined) {
      await this.#sweeping;
      await Promise.all(this.#inFlight.values());
    }
  }

  /** Completes the step of every noted job that has ended. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    try {
      const ids = await this.#o.store.listMembers(WORKFLOW_STEPS_SET);
      for (const id of ids) await this.settle(id);
    } catch (error) {
      this.#o.logger.warn({ err: error }, "could not look at the workflow steps");
    }
  }

  /** Completes the job's step if it has ended and its step is not completed; never throws. */
  settle(jobId: string): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    const running = this.#inFlight.get(jobId);
    if (running !== undefined) {
      // That look may have found the job still running: one more once it is over.
      this.#again.add(jobId);
      return running;
    }
    const settling = this.#settle(jobId)
      .catch((error: unknown) =>
        this.#o.logger.warn({ err: error, jobId }, "could not complete the workflow step yet"),
      )
      .finally(() => {
        this.#inFlight.delete(jobId);
        if (this.#again.delete(jobId)) void this.settle(jobId);
      });
    this.#inFlight.set(jobId, settling);
    return settling;
  }

  async #settle(jobId: string): Promise<void> {
    const { store, repo } = this.#o;
    const result = await withLease(store, jobLeaseKey(jobId), STEP_LEASE, async () => {
      const job = await repo.get(jobId);
      // Gone (expired, its workspace forgotten), or not a step's: nothing left to complete.
      if (job === undefined || job.origin.kind !== "workflow") return "forget";
      if (job.stepCompleted !== undefined) return "forget";
      if (isActive(job)) return "running";
      const outcome = await this.#complete(job);
      const kept = outcome === "refused" ? "refused" : job.stage === "done" ? "success" : "error";
      const deps = { ...this.#o, onStageChange: undefined, kick: () => undefined };
      await applyEvent(deps, job, { type: "step_completed", outcome: kept });
      this.#o.logger.info(
        { jobId, executionId: job.origin.executionId, stage: job.stage, outcome },
        "workflow step completed",
      );
      return "forget";
    });
    // Held by another replica (which completes it) or a long step: the next sweep looks again.
    if (result.held && result.value === "forget") {
      await store.removeMember(WORKFLOW_STEPS_SET, jobId);
    }
  }

  #complete(job: Job): Promise<StepCompletion> {
    const { port } = this.#o;
    switch (job.stage) {
      case "done":
        return port.succeed(job);
      case "failed":
      case "canceled":
      case "discarded":
        return port.fail(job);
      default:
        throw new Error(`a job in stage ${job.stage} has not ended`);
    }
  }
}
