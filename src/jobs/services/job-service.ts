import type { SpeakerName } from "../../notetaker/index.ts";
import { applyRequests, jobAfter } from "../engine/apply-event.ts";
import type { JobRequest } from "../model/events.ts";
import { isActive, type Job } from "../model/job.ts";
import { type SpeakerQuotes, speakerQuotesSchema } from "../model/job-parts.ts";
import { canTransition } from "../model/transitions.ts";
import { loadStored } from "../persistence/blobs.ts";
import { channelIndex, jobLeaseKey, userIndex } from "../persistence/job-repository.ts";
import { RequestsLocked } from "../persistence/job-requests.ts";
import { withLease } from "../persistence/with-lease.ts";
import { StoreUnavailableError } from "../recovery/store-unavailable.ts";
import { JobStarts } from "./start-jobs.ts";

/** Taken only if free: a command never waits for the job's lease. */
const COMMAND_LEASE = { ttlMs: 10_000 };

export type CommandRefusal = "not_found" | "wrong_stage" | "cooldown";
export type CommandResult =
  | { ok: true; job: Job }
  | { ok: false; reason: CommandRefusal; retryInMs?: number };

/**
 * What the Slack layer asks of the job layer. A command is recorded the moment it arrives and
 * applied under the job's lease once the job can take it: a step never refuses or delays it.
 */
export class JobService extends JobStarts {
  get(jobId: string): Promise<Job | undefined> {
    return this.o.repo.get(jobId);
  }

  submitNames(
    jobId: string,
    speakerMap: SpeakerName[],
    changes: { contextText?: string; templateId?: string; members?: Record<string, string> } = {},
  ): Promise<CommandResult> {
    return this.#command(jobId, { type: "names_given", speakerMap, ...changes });
  }

  skipNaming(jobId: string): Promise<CommandResult> {
    return this.#command(jobId, { type: "naming_skipped" });
  }

  retry(jobId: string): Promise<CommandResult> {
    return this.#command(jobId, { type: "retried" });
  }

  /** Once per cooldown: each Regenerate is a new note task at the Note Service. */
  async regenerate(
    jobId: string,
    changes: {
      speakerMap?: SpeakerName[];
      members?: Record<string, string>;
      contextText?: string;
      templateId?: string;
    },
  ): Promise<CommandResult> {
    const job = await this.o.repo.get(jobId);
    const waitMs = job === undefined ? 0 : this.regenerateWaitMs(job);
    if (waitMs > 0) return { ok: false, reason: "cooldown", retryInMs: waitMs };
    return this.#command(jobId, { type: "regenerate", ...changes });
  }

  postReviewed(jobId: string, by: string): Promise<CommandResult> {
    return this.#command(jobId, { type: "review_posted", by });
  }

  discardReview(jobId: string, by: string): Promise<CommandResult> {
    return this.#command(jobId, { type: "review_discarded", by });
  }

  cancel(jobId: string, by: string): Promise<CommandResult> {
    return this.#command(jobId, { type: "canceled", by });
  }

  /** None when the blob is gone: the modal still opens, without quotes. */
  async quotesOf(job: Job): Promise<SpeakerQuotes> {
    const stored =
      job.stage === "naming" ? job.quotes : "note" in job ? job.note.quotes : undefined;
    if (stored === undefined) return {};
    try {
      return await loadStored(this.o.store, stored, speakerQuotesSchema);
    } catch (error) {
      this.o.logger.warn({ jobId: job.id, err: error }, "speaker quotes unreadable");
      return {};
    }
  }

  regenerateWaitMs(job: Job): number {
    if (job.regeneratedAt === undefined) return 0;
    return Math.max(0, job.regeneratedAt + this.o.regenerateCooldownMs - this.o.now());
  }

  listByChannel(tenant: string, channelId: string): Promise<Job[]> {
    return this.o.repo.listIndex(channelIndex(tenant, channelId));
  }

  listByUser(tenant: string, userId: string): Promise<Job[]> {
    return this.o.repo.listIndex(userIndex(tenant, userId));
  }

  /**
   * Records the command if the job, with what is already asked of it applied, can take it;
   * applies it now unless a step holds the job, which then gives it up. Either way the person is
   * told it is done.
   */
  async #command(jobId: string, event: JobRequest): Promise<CommandResult> {
    const recorded = await this.#record(jobId, event);
    if (!recorded.ok) return recorded;
    const { runner } = this.o;
    const applied = await withLease(this.o.store, jobLeaseKey(jobId), COMMAND_LEASE, () =>
      applyRequests({ ...this.o, kick: (id) => runner.kick(id) }, jobId),
    ).catch((error: unknown) => {
      // Recorded, so it lands: the step that claims the job next applies it.
      this.o.logger.warn({ err: error, jobId }, "could not apply a command at once");
      return { held: false } as const;
    });
    if (!applied.held) {
      runner.abort(jobId);
      // Applied when the lease is given back, by whoever claims the job then.
      runner.kick(jobId);
      return recorded;
    }
    // After the lease is given back: a claim while this command
    // held it would have moved the job to when the lease ends.
    const job = applied.value.job ?? recorded.job;
    if (isActive(job)) runner.kick(jobId);
    runner.settle(job);
    return { ok: true, job };
  }

  /** Judged under the list's lock, against the job as the requests already waiting leave it. */
  async #record(jobId: string, event: JobRequest): Promise<CommandResult> {
    try {
      return await this.o.repo.requests.record<CommandResult>(jobId, async (waiting) => {
        const job = await this.o.repo.get(jobId);
        if (job === undefined) return { value: { ok: false, reason: "not_found" } };
        const ahead = jobAfter(job, waiting, this.o.now());
        if (!canTransition(ahead, event)) return { value: { ok: false, reason: "wrong_stage" } };
        this.o.logger.info({ jobId, event: event.type, from: ahead.stage }, "job command");
        return { value: { ok: true, job }, add: event };
      });
    } catch (error) {
      throw error instanceof RequestsLocked ? new StoreUnavailableError(error) : error;
    }
  }
}
