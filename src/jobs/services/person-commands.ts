import type { Logger } from "pino";
import type { Store } from "../../store/index.ts";
import type { Admission } from "../engine/admission.ts";
import { applyRequests, jobAfter, type StageObserver } from "../engine/apply-event.ts";
import type { JobRunner } from "../engine/runner.ts";
import { isActive, type Job } from "../model/job.ts";
import { canTransition } from "../model/transitions.ts";
import { type JobRepository, jobLeaseKey } from "../persistence/job-repository.ts";
import { type JobRequest, RequestsLocked } from "../persistence/job-requests.ts";
import { withLease } from "../persistence/with-lease.ts";
import { StoreUnavailableError } from "../recovery/store-unavailable.ts";

/** Taken only if free: a command never waits for the job's lease. */
const COMMAND_LEASE = { ttlMs: 10_000 };

export type CommandRefusal = "not_found" | "wrong_stage" | "cooldown";
export type CommandResult =
  | { ok: true; job: Job }
  | { ok: false; reason: CommandRefusal; retryInMs?: number };

interface Deps {
  repo: JobRepository;
  store: Store;
  admission: Admission;
  runner: Pick<JobRunner, "kick" | "abort" | "settle">;
  logger: Logger;
  onStageChange?: StageObserver | undefined;
  now: () => number;
}

/**
 * A person's commands, recorded the moment they arrive and applied as soon as the job can take
 * them: never refused because a step holds the job.
 */
export class PersonCommands {
  readonly #o: Deps;

  constructor(deps: Deps) {
    this.#o = deps;
  }

  /**
   * Records the command if the job, with what is already asked of it
   * applied, can take it; applies it now unless a step holds the job,
   * which then gives it up. Either way the person is told it is done.
   */
  async apply(jobId: string, event: JobRequest): Promise<CommandResult> {
    const recorded = await this.#record(jobId, event);
    if (!recorded.ok) return recorded;
    const applied = await withLease(this.#o.store, jobLeaseKey(jobId), COMMAND_LEASE, () => {
      const { onStageChange } = this.#o;
      const kick = (id: string) => this.#o.runner.kick(id);
      return applyRequests({ ...this.#o, onStageChange, kick }, jobId);
    });
    if (!applied.held) {
      this.#o.runner.abort(jobId);
      // Applied when the lease is given back, by whoever claims the job then.
      this.#o.runner.kick(jobId);
      return recorded;
    }
    // After the lease is given back: a claim while this command
    // held it would have moved the job to when the lease ends.
    const job = applied.value.job ?? recorded.job;
    if (isActive(job)) this.#o.runner.kick(jobId);
    this.#o.runner.settle(job);
    return { ok: true, job };
  }

  async #record(jobId: string, event: JobRequest): Promise<CommandResult> {
    try {
      return await this.#o.repo.requests.record<CommandResult>(jobId, async (waiting) => {
        const job = await this.#o.repo.get(jobId);
        if (job === undefined) return { value: { ok: false, reason: "not_found" } };
        const ahead = jobAfter(job, waiting, this.#o.now());
        if (!canTransition(ahead, event)) {
          return { value: { ok: false, reason: "wrong_stage" } };
        }
        this.#o.logger.info({ jobId, event: event.type, from: ahead.stage }, "job command");
        return { value: { ok: true, job }, add: event };
      });
    } catch (error) {
      throw error instanceof RequestsLocked ? new StoreUnavailableError(error) : error;
    }
  }
}
