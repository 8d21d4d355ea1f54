import type { Logger } from "pino";
import type { PollSchedule } from "../../notetaker/index.ts";
import type { Store } from "../../store/index.ts";
import type { JobEvent } from "../model/events.ts";
import type { ActiveJob, Job } from "../model/job.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import type { MediaPort, NoteTakerPort, SlackPort, StatusMode } from "../ports.ts";
import type { Admission } from "./admission.ts";
import { applyEvent, type StageObserver } from "./apply-event.ts";
import { JobStepError, lostInstall } from "./failure-policy.ts";

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

/** Thrown to give the job up when something was asked of it; the runner applies it next. */
export class RequestWaiting extends Error {
  constructor() {
    super("A request is waiting for the job.");
    this.name = this.constructor.name;
  }
}

/** What the runner gives every step's context. */
export interface StepDeps extends JobPorts {
  media: MediaPort | undefined;
  limits: StageLimits;
  tempDir: string;
  now: () => number;
  statusThrottleMs: number;
  onStageChange?: StageObserver | undefined;
  lastStatusAt: Map<string, number>;
  kick: (jobId: string) => void;
  stopped: () => boolean;
}

/** One step's context: its logger, its signal, and the lease it must still hold to save. */
export function createStepContext(
  o: StepDeps,
  run: { logger: Logger; signal: AbortSignal; holdLease: () => Promise<void> },
): StepContext {
  const { now } = o;
  const { logger, signal } = run;
  const requestWaiting = async (jobId: string) => (await o.repo.requests.list(jobId)).length > 0;
  const ctx: StepContext = {
    ...o,
    signal,
    stopping: o.stopped,
    logger,
    commit: async (job: Job, event: JobEvent) => {
      // A replica that stalled past its lease must not overwrite the new holder's progress.
      await run.holdLease();
      const terminal = event.type === "canceled" || event.type === "failed";
      if (!terminal && (await requestWaiting(job.id))) throw new RequestWaiting();
      return applyEvent({ ...o, logger }, job, event);
    },
    update: async <J extends Job>(job: J, event: JobEvent): Promise<J> => {
      const next = await ctx.commit(job, event);
      if (next.stage !== job.stage) {
        throw new Error(`The event ${event.type} moved a job out of stage ${job.stage}.`);
      }
      return next as J;
    },
    showStatus: async (shown, mode) => {
      const last = o.lastStatusAt.get(shown.id) ?? 0;
      if (mode === "progress" && now() - last < o.statusThrottleMs) return shown;
      o.lastStatusAt.set(shown.id, now());
      // The first post is checkpointed like a note part: a
      // run after a lost answer looks in the thread first.
      const mayExist = shown.statusTs === undefined && shown.statusPostingAt !== undefined;
      const job =
        shown.statusTs === undefined && !mayExist
          ? await ctx.commit(shown, { type: "status_posting", at: now() })
          : shown;
      const drawing = o.gateway.showStatus(job, mode, () => o.repo.get(job.id), mayExist);
      const drawn = await untilGivenUp(drawing, signal, () => requestWaiting(job.id));
      // Given up: a prompt's step stops here; any other stops at its next commit.
      if ("gaveUp" in drawn) {
        if (mode === "required") throw drawn.gaveUp;
        return job;
      }
      if ("failed" in drawn) {
        const error = drawn.failed;
        // A stale status line is not worth failing a job
        // for; a prompt is, and a lost install ends the job.
        if (mode === "required" || lostInstall(error)) throw error;
        logger.warn({ err: error }, "could not update the status message");
        return job;
      }
      const { ts } = drawn;
      return ts === job.statusTs ? job : ctx.commit(job, { type: "status_posted", ts });
    },
  };
  return ctx;
}

const REQUEST_CHECK_MS = 250;

/**
 * The draw's outcome, unless a request or the signal gives the
 * step up first: drawing never keeps a person's command waiting.
 */
async function untilGivenUp(
  drawing: Promise<string>,
  signal: AbortSignal,
  requestWaiting: () => Promise<boolean>,
): Promise<{ ts: string } | { failed: unknown } | { gaveUp: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  let over = false;
  let onAbort: (() => void) | undefined;
  const givenUp = new Promise<{ gaveUp: unknown }>((resolve) => {
    onAbort = () => resolve({ gaveUp: signal.reason });
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    const look = () => {
      timer = setTimeout(async () => {
        const asked = await requestWaiting().catch(() => false);
        if (over) return;
        if (asked) resolve({ gaveUp: new RequestWaiting() });
        else look();
      }, REQUEST_CHECK_MS);
    };
    look();
  });
  const outcome = drawing.then(
    (ts) => ({ ts }),
    (failed: unknown) => ({ failed }),
  );
  try {
    return await Promise.race([outcome, givenUp]);
  } finally {
    over = true;
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
  }
}
