import type { Logger } from "pino";
import type { PollSchedule } from "../notetaker/index.ts";
import type { Store } from "../store/index.ts";
import type { Admission } from "./admission.ts";
import { applyEvent, type StageObserver } from "./apply-event.ts";
import type { Gateway } from "./gateway.ts";
import type { Job } from "./job.ts";
import type { JobRepository } from "./job-repository.ts";
import type { NoteTakerPort } from "./note-taker-port.ts";
import type { StageLimits, StepContext } from "./steps.ts";
import type { JobEvent } from "./transitions.ts";

export interface StepContextOptions {
  repo: JobRepository;
  store: Store;
  admission: Admission;
  client: NoteTakerPort;
  gateway: Gateway;
  schedule: PollSchedule;
  limits: StageLimits;
  tempDir: string;
  now: () => number;
  statusThrottleMs: number;
  onStageChange: StageObserver | undefined;
  logger: Logger;
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
