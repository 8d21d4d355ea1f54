import { BACKOFFS, backoffDelayMs } from "../util/backoff.ts";
import { optional } from "../util/optional.ts";
import { type Guide, type PollPlan, planNextPoll, type RunningPoll } from "./poll-plan.ts";

/** The guide's schedule (`BACKOFFS.notePoll`, configured): `poll-plan.ts`'s bound and fallback. */
export interface PollScheduleOptions {
  initialMs: number;
  maxMs: number;
  /** Fraction of the delay added or removed at random (0.1 → ±10 %). */
  jitter?: number;
  random?: () => number;
}

export interface PollSchedule {
  /** The longest wait between two polls (the guide's cap, before jitter). */
  readonly capMs?: number;
  /** The guide's wait before poll number `attempt` (0 = the first poll after submission). */
  delayMs(attempt: number): number;
  /** The wait after a poll that found the task running, and what to keep of what it saw. */
  afterRunning(poll: RunningPoll): PollPlan;
}

export function createPollSchedule(options: PollScheduleOptions): PollSchedule {
  const backoff = {
    ...BACKOFFS.notePoll,
    baseMs: options.initialMs,
    maxMs: options.maxMs,
    ...optional("jitter", options.jitter),
  };
  const guide: Guide = { initialMs: backoff.baseMs, maxMs: backoff.maxMs, jitter: backoff.jitter };
  const delayMs = (attempt: number) => backoffDelayMs(backoff, attempt, options.random);
  return {
    capMs: backoff.maxMs,
    delayMs,
    afterRunning: (poll) => planNextPoll(guide, poll, delayMs(poll.attempt + 1)),
  };
}
