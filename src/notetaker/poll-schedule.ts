import { BACKOFFS, backoffDelayMs } from "../util/backoff.ts";
import { optional } from "../util/optional.ts";
import { estimateFinish } from "./finish-estimate.ts";
import { type Progress, type ProgressTrail, recordReading } from "./progress.ts";

/** The guide's schedule (`BACKOFFS.notePoll`, configured): the bound and fallback of the plan. */
export interface PollScheduleOptions {
  initialMs: number;
  maxMs: number;
  jitter?: number;
  random?: () => number;
}

export interface PollSchedule {
  /** The longest wait between two polls (the guide's cap, before jitter). */
  readonly capMs?: number;
  /** The guide's wait before poll number `attempt` (0 = the first poll after submission). */
  delayMs(attempt: number): number;
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

/**
 * The wait after a poll that found a task running: polls are saved while the end is far and spent
 * around the moment progress foretells. The guide's schedule bounds it and is followed whenever
 * progress says nothing usable.
 */

export interface RunningPoll {
  /** How many polls found it running before this one (the job record's `pollAttempt`). */
  attempt: number;
  /** What the earlier polls saw; undefined at the first poll (or in an older record). */
  trail: ProgressTrail | undefined;
  progress: Progress | null;
  now: number;
}

export interface PollPlan {
  waitMs: number;
  trail: ProgressTrail;
  /** Whether progress chose the wait, or the guide did. */
  by: "progress" | "guide";
}

/** Progress this far behind its own line (a share of the task) is a stall. */
const STALL_SHARE = 0.1;

/** `guideWaitMs`: the guide's (jittered) wait for attempt `poll.attempt + 1`. */
export function planNextPoll(guide: Guide, poll: RunningPoll, guideWaitMs: number): PollPlan {
  const { now } = poll;
  const polls = poll.attempt + 1;
  // An older record, or the first poll: counted as though the guide had made every poll.
  const before = poll.trail ?? { from: now - guideTimeOfPoll(guide, polls), runs: [] };
  const expected = estimateFinish(before.runs, before.from)?.progressAt(now);
  const trail = recordReading(before, now, poll.progress?.fraction ?? null, expected);
  // The budget: the next poll is our number polls + 1, due no sooner than the guide's.
  const earliest = trail.from + guideTimeOfPoll(guide, polls + 1) - now;
  const byGuide = (): PollPlan => {
    if (trail.led !== true) return { waitMs: guideWaitMs, trail, by: "guide" };
    const wait = guideClockWait(guide, polls, now - trail.from, guideWaitMs);
    return { waitMs: within(guide, Math.max(wait, earliest)), trail, by: "guide" };
  };

  const seen = trail.runs.at(-1);
  if (trail.erratic === true || seen === undefined || seen[1] !== now) return byGuide();
  if (polls === 1 && seen[2] === 0) {
    // A first 0 % (queued, or a slow start) skips the guide's second poll: from its third the
    // waits are at the cap, and a poll saved now can be spent near the end.
    return {
      waitMs: within(guide, trail.from + guideTimeOfPoll(guide, 3) - now),
      trail: { ...trail, led: true },
      by: "progress",
    };
  }
  const estimate = estimateFinish(trail.runs, trail.from);
  if (estimate === undefined) return byGuide();
  if (estimate.progressAt(now) - seen[2] > Math.max(STALL_SHARE, 2 * estimate.step)) {
    return byGuide();
  }
  // A moment's grace past the latest end: a poll a hair too soon costs a whole wait.
  let { soonest, latest } = estimate;
  latest += guide.initialMs / 4;
  if (now > latest) {
    // Outlived: at its last step the end is still due within a step; else, the guide.
    if (seen[2] < 1 - estimate.step) return byGuide();
    soonest = now;
    latest = now + estimate.step / estimate.rate;
  }

  // The polls the budget allows by the latest end, less those that reach the soonest one.
  const far = Math.max(0, Math.ceil((soonest - now) / guide.maxMs) - 1);
  const spare = guidePollsWithin(guide, latest - trail.from) - polls - far;
  let wait: number;
  if (far > 0) {
    // Far from the end: as long as the cap allows, saving polls for it.
    wait = guide.maxMs;
  } else {
    // Near it: the polls left spread evenly over the end's window, the last at its latest
    // moment (a poll at its soonest sees nothing an end inside the window would show).
    const start = Math.max(now, soonest);
    wait = spare >= 1 ? start - now + (latest - start) / spare : earliest;
  }
  return {
    waitMs: within(guide, Math.max(wait, earliest, guide.initialMs / 2)),
    trail: { ...trail, led: true },
    by: "progress",
  };
}

/** The guide's wait where its own schedule is now, for a plan that saved polls and falls back. */
function guideClockWait(guide: Guide, polls: number, elapsedMs: number, guideWaitMs: number) {
  const due = Math.max(polls, guidePollsWithin(guide, elapsedMs));
  return (guideWaitMs * guideBaseMs(guide, due)) / guideBaseMs(guide, polls);
}

function within(guide: Guide, waitMs: number): number {
  return Math.round(Math.min(guide.maxMs, Math.max(0, waitMs)));
}

/** The guide's poll schedule as a bound: its waits, and how many polls it makes in a time. */
export interface Guide {
  initialMs: number;
  maxMs: number;
  /** Fraction of each wait added or removed at random (0.1 → ±10 %), never past the cap. */
  jitter: number;
}

/** The guide's wait before poll `attempt` (0 = the first after submission), without jitter. */
export function guideBaseMs(guide: Guide, attempt: number): number {
  const exponent = Math.min(Math.max(0, attempt), 30);
  return Math.min(guide.maxMs, guide.initialMs * 2 ** exponent);
}

/** The guide's mean wait before poll `attempt`: a wait at the cap is shorter on average. */
export function guideMeanMs(guide: Guide, attempt: number): number {
  const base = guideBaseMs(guide, attempt);
  const jitter = guide.jitter;
  if (jitter <= 0 || base * (1 + jitter) <= guide.maxMs) return base;
  // The draw (−1…1) above which the cap clips the wait, and the mean of the clipped draw.
  const clip = (guide.maxMs / base - 1) / jitter;
  const below = base * ((clip + 1) / 2 + (jitter * (clip * clip - 1)) / 4);
  return below + (guide.maxMs * (1 - clip)) / 2;
}

/** When the guide makes its poll number `count` (1 = the first), on average, after submission. */
export function guideTimeOfPoll(guide: Guide, count: number): number {
  let elapsed = 0;
  for (let attempt = 0; attempt < count; attempt += 1) {
    const mean = guideMeanMs(guide, attempt);
    if (guideBaseMs(guide, attempt) >= guide.maxMs) return elapsed + mean * (count - attempt);
    elapsed += mean;
  }
  return elapsed;
}

/** How many polls the guide makes, on average, within `elapsedMs` of submission. */
export function guidePollsWithin(guide: Guide, elapsedMs: number): number {
  // A hair of slack, so that a poll made exactly at the guide's time counts.
  const budget = elapsedMs + 1e-6;
  let elapsed = 0;
  for (let attempt = 0; ; attempt += 1) {
    const mean = guideMeanMs(guide, attempt);
    if (guideBaseMs(guide, attempt) >= guide.maxMs) {
      return attempt + Math.max(0, Math.floor((budget - elapsed) / mean));
    }
    if (elapsed + mean > budget) return attempt;
    elapsed += mean;
  }
}
