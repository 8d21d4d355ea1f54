import { BACKOFFS, backoffDelayMs } from "../util/backoff.ts";
import { optional } from "../util/optional.ts";

/**
 * How long to wait before each poll of a task: 2 s first, doubling, capped at 15 s, with a
 * little jitter (the practice the service's provider shows; the numbers are configurable).
 */
export interface PollScheduleOptions {
  initialMs: number;
  maxMs: number;
  /** Fraction of the delay added or removed at random (0.1 → ±10 %). */
  jitter?: number;
  random?: () => number;
}

export interface PollSchedule {
  /** The wait before poll number `attempt` (0 = the first poll after submission). */
  delayMs(attempt: number): number;
}

/** Builds a poll schedule from the configured bounds. */
export function createPollSchedule(options: PollScheduleOptions): PollSchedule {
  const backoff = {
    ...BACKOFFS.notePoll,
    baseMs: options.initialMs,
    maxMs: options.maxMs,
    ...optional("jitter", options.jitter),
  };
  return { delayMs: (attempt) => backoffDelayMs(backoff, attempt, options.random) };
}
