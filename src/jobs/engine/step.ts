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
 * The contract of a step. Kept apart from step-context.ts, which reaches every stage's reducers:
 * the stages import this file, never that one.
 */

export interface StageLimits {
  transcribingMs: number;
  writingMs: number;
  /** The job's retention (`createJobs` sets it so). */
  reviewMs: number;
}

export const defaultStageLimits: StageLimits = {
  transcribingMs: 3 * 60 * 60_000,
  writingMs: 60 * 60_000,
  reviewMs: 30 * 24 * 60 * 60_000,
};

/** `commit` applies an event and persists the result before returning. */
export interface StepContext {
  client: NoteTakerPort;
  gateway: SlackPort;
  /** FFmpeg; undefined without it. */
  media: MediaPort | undefined;
  store: Store;
  admission: Admission;
  schedule: PollSchedule;
  limits: StageLimits;
  tempDir: string;
  now: () => number;
  signal: AbortSignal;
  /** Shutting down: a step with several parts stops between two of them, each checkpointed. */
  stopping(): boolean;
  logger: Logger;
  commit(job: Job, event: JobEvent): Promise<Job>;
  /** `commit` for an event that keeps the job in its stage (checked). */
  update<J extends Job>(job: J, event: JobEvent): Promise<J>;
  /** "progress" draws are throttled, a failed "stage" one is logged, a "required" one throws. */
  showStatus(job: Job, mode: StatusMode): Promise<Job>;
}

export interface JobPorts {
  repo: JobRepository;
  store: Store;
  media?: MediaPort | undefined;
  admission: Admission;
  client: NoteTakerPort;
  gateway: SlackPort;
  schedule: PollSchedule;
  logger: Logger;
}

/** On the store's clock: a wall clock set forward does not time a transcription out. */
export function checkLimit(ctx: StepContext, job: ActiveJob, limitMs: number): void {
  if (ctx.now() - job.stageStartedAt > limitMs) {
    throw new JobStepError({ code: "timeout", detail: String(Math.round(limitMs / 60_000)) }, true);
  }
}
