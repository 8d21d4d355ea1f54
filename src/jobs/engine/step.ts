import type { Logger } from "pino";
import type { PollSchedule } from "../../notetaker/index.ts";
import type { Store } from "../../store/index.ts";
import type { JobEvent } from "../model/events.ts";
import type { ActiveJob, Job } from "../model/job.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import type { MediaPort, NoteTakerPort, SlackPort, StatusMode } from "../ports.ts";
import type { Admission } from "./admission.ts";
import { JobStepError } from "./failure-policy.ts";

/*
 * The contract between a stage's step and the runner: what a step may use. Kept apart from
 * its implementation (step-context.ts), which goes through applyEvent and so through every
 * stage's reducers: the stages import this file, never that one.
 */

/** How long a stage may run before the job fails with a clear reason. */
export interface StageLimits {
  transcribingMs: number;
  writingMs: number;
  /** How long a note waits for its review: the job's retention (`createJobs` sets it so). */
  reviewMs: number;
}

export const defaultStageLimits: StageLimits = {
  transcribingMs: 3 * 60 * 60_000,
  writingMs: 60 * 60_000,
  reviewMs: 30 * 24 * 60 * 60_000,
};

/** What a step may use. `commit` applies an event and persists the result before returning. */
export interface StepContext {
  client: NoteTakerPort;
  gateway: SlackPort;
  /** FFmpeg, to prepare what the Note Service would refuse as it is; undefined without it. */
  media: MediaPort | undefined;
  store: Store;
  /** Fair-use slots: a queued job starts only when one is free. */
  admission: Admission;
  schedule: PollSchedule;
  limits: StageLimits;
  tempDir: string;
  now: () => number;
  signal: AbortSignal;
  /**
   * The process is shutting down: a step with work in several parts stops between two of
   * them, each checkpointed, rather than running the rest into the shutdown's time limit.
   */
  stopping(): boolean;
  logger: Logger;
  commit(job: Job, event: JobEvent): Promise<Job>;
  /** `commit` for an event that keeps the job in its stage (checked), typed as it was. */
  update<J extends Job>(job: J, event: JobEvent): Promise<J>;
  /**
   * Shows the job's state in Slack. "progress" edits are throttled; "stage" ones always go
   * out but a failure is only logged; a "required" one (a prompt the user must act on) throws.
   */
  showStatus(job: Job, mode: StatusMode): Promise<Job>;
}

/** What steps work with: the job records, the store, the two services, the poll plan. */
export interface JobPorts {
  repo: JobRepository;
  store: Store;
  /** FFmpeg, when it is installed. */
  media?: MediaPort | undefined;
  /** Fair-use slots shared by every replica. */
  admission: Admission;
  client: NoteTakerPort;
  gateway: SlackPort;
  schedule: PollSchedule;
  logger: Logger;
}

/**
 * Fails the job (retryably) once its stage has run longer than `limitMs`, on the store's
 * clock: a wall clock set an hour forward does not time a transcription out.
 */
export function checkLimit(ctx: StepContext, job: ActiveJob, limitMs: number): void {
  if (ctx.now() - job.stageStartedAt > limitMs) {
    throw new JobStepError({ code: "timeout", detail: String(Math.round(limitMs / 60_000)) }, true);
  }
}
