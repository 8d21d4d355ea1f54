import { estimateFinish } from "./finish-estimate.ts";
import { type Guide, guideBaseMs, guidePollsWithin, guideTimeOfPoll } from "./poll-guide.ts";
import type { Progress } from "./progress.ts";
import { type ProgressTrail, recordReading } from "./progress-trail.ts";

/**
 * The wait after a poll that found a task running, led by the task's own progress: polls
 * are saved while the end is far and spent around the moment the progress says it will
 * come. The guide's schedule bounds it — never more polls by any moment than the guide
 * makes by then on average, never a wait past its cap — and is followed as it is whenever
 * progress says nothing usable: missing, not yet rising, behind its own pace (a stall),
 * going back or leaping (erratic, for the rest of the task), or past the end it foretold.
 * One exception: a first reading of 0 % skips the guide's second poll (see below). Once a
 * wait was led, falling back means the guide's waits from where its schedule is by then.
 * Pure: the caller brings the clock and the guide's own (jittered) wait.
 */

/** A poll that found the task running. */
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
  /** To keep for the next poll. */
  trail: ProgressTrail;
  /** Whether progress chose the wait, or the guide did. */
  by: "progress" | "guide";
}

/** Progress this far behind its own line (a share of the task) is a stall. */
const STALL_SHARE = 0.1;

/**
 * The plan after `poll`; `guideWaitMs` is the guide's wait at this point (its delay for
 * attempt `poll.attempt + 1`, jitter included).
 */
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
    // A first reading of 0 %: the task is queued, or starts slowly (a back-loaded one reads
    // 0 % for its first tenth). From the guide's third poll its waits are at the cap, so the
    // bound leaves such a task no poll to spend near its end unless one is saved before:
    // the second (6 s at the defaults). That costs only a task ending between the first and
    // second polls (2–6 s), then seen at the third (14 s), when the guide sees any task
    // ending after the second; polled from then as the guide, while progress says nothing.
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

/**
 * The guide's wait at this moment of its own schedule: a plan that saved polls and falls
 * back waits as the guide does after its poll due by now (its cap, soon), not after its poll
 * with the plan's count. `guideWaitMs` is the guide's (jittered) wait after poll `polls`.
 */
function guideClockWait(guide: Guide, polls: number, elapsedMs: number, guideWaitMs: number) {
  const due = Math.max(polls, guidePollsWithin(guide, elapsedMs));
  return (guideWaitMs * guideBaseMs(guide, due)) / guideBaseMs(guide, polls);
}

/** A wait in whole milliseconds, never past the guide's cap. */
function within(guide: Guide, waitMs: number): number {
  return Math.round(Math.min(guide.maxMs, Math.max(0, waitMs)));
}
