import type { Logger } from "pino";
import type { PollSchedule } from "../notetaker/index.ts";
import type { Store } from "../store/index.ts";
import type { Admission } from "./admission.ts";
import { applyEvent, type StageObserver } from "./apply-event.ts";
import type { JobEvent } from "./events.ts";
import type { Gateway } from "./gateway.ts";
import type { Job } from "./job.ts";
import type { JobRepository } from "./job-repository.ts";
import type { NoteTakerPort } from "./note-taker-port.ts";

/** How long a stage may run before the job fails with a clear reason. */
export interface StageLimits {
  transcribingMs: number;
  writingMs: number;
}

export const defaultStageLimits: StageLimits = {
  transcribingMs: 3 * 60 * 60_000,
  writingMs: 60 * 60_000,
};

/** What a step may use. `commit` applies an event and persists the result before returning. */
export interface StepContext {
  client: NoteTakerPort;
  gateway: Gateway;
  store: Store;
  /** Fair-use slots: a queued job starts only when one is free. */
  admission: Admission;
  schedule: PollSchedule;
  limits: StageLimits;
  tempDir: string;
  now: () => number;
  signal: AbortSignal;
  logger: Logger;
  commit(job: Job, event: JobEvent): Promise<Job>;
  /** `commit` for an event that keeps the job in its stage (checked), typed as it was. */
  update<J extends Job>(job: J, event: JobEvent): Promise<J>;
  /**
   * Shows the job's state in Slack. "progress" edits are throttled; "stage" ones always go
   * out but a failure is only logged; a "required" one (a prompt the user must act on) throws.
   */
  showStatus(job: Job, mode: "progress" | "stage" | "required"): Promise<Job>;
}

/** What steps work with: the job records, the store, the two services, the poll plan. */
export interface JobPorts {
  repo: JobRepository;
  store: Store;
  /** Fair-use slots shared by every replica. */
  admission: Admission;
  client: NoteTakerPort;
  gateway: Gateway;
  schedule: PollSchedule;
  logger: Logger;
}

export interface StepContextOptions extends JobPorts {
  limits: StageLimits;
  tempDir: string;
  now: () => number;
  statusThrottleMs: number;
  onStageChange: StageObserver | undefined;
  signal: AbortSignal;
  /** Renews the job's lease; throws once this process has lost it. */
  holdLease: () => Promise<void>;
  /** When each job's status message was last drawn (shared across steps, for throttling). */
  lastStatusAt: Map<string, number>;
  isCanceled: (jobId: string) => Promise<boolean>;
  onCanceled: () => Error;
  /** Runs a job's next step soon (a waiting job a freed slot lets through). */
  kick: (jobId: string) => void;
}

/**
 * What one step may use: the ports, and the two operations every step goes through —
 * `commit` (record an event, checkpoint) and `showStatus` (draw the status message).
 */
export function createStepContext(o: StepContextOptions): StepContext {
  const { now, logger } = o;
  const ctx: StepContext = {
    client: o.client,
    gateway: o.gateway,
    store: o.store,
    admission: o.admission,
    schedule: o.schedule,
    limits: o.limits,
    tempDir: o.tempDir,
    now,
    signal: o.signal,
    logger,
    commit: async (job: Job, event: JobEvent) => {
      // Every save first proves this process still holds the lease: a replica that
      // stalled past it must not overwrite the new holder's progress.
      await o.holdLease();
      const terminal = event.type === "canceled" || event.type === "failed";
      if (!terminal && (await o.isCanceled(job.id))) throw o.onCanceled();
      const next = await applyEvent({ ...o, logger }, job, event);
      return next;
    },
    update: async <J extends Job>(job: J, event: JobEvent): Promise<J> => {
      const next = await ctx.commit(job, event);
      if (next.stage !== job.stage) {
        throw new Error(`The event ${event.type} moved a job out of stage ${job.stage}.`);
      }
      return next as J;
    },
    showStatus: async (job, mode) => {
      const last = o.lastStatusAt.get(job.id) ?? 0;
      if (mode === "progress" && now() - last < o.statusThrottleMs) return job;
      o.lastStatusAt.set(job.id, now());
      let ts: string;
      try {
        ts = await o.gateway.showStatus(job);
      } catch (error) {
        // A stale status line is not worth failing a job for; the next change redraws it.
        // Only a prompt the user must act on ("required") makes the step try again.
        if (mode === "required") throw error;
        logger.warn({ err: error }, "could not update the status message");
        return job;
      }
      return ts === job.statusTs ? job : ctx.commit(job, { type: "status_posted", ts });
    },
  };
  return ctx;
}
