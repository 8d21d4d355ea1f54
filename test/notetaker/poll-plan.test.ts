import { describe, expect, it } from "vitest";
import { estimateFinish } from "../../src/notetaker/finish-estimate.ts";
import {
  createPollSchedule,
  normalizeProgress,
  type PollSchedule,
  type ProgressTrail,
} from "../../src/notetaker/index.ts";
import {
  type Guide,
  guideMeanMs,
  guidePollsWithin,
  guideTimeOfPoll,
} from "../../src/notetaker/poll-schedule.ts";

/** The defaults: 2 s doubling to 15 s, ±10 %; every draw in the middle (no jitter drawn). */
const GUIDE: Guide = { initialMs: 2000, maxMs: 15_000, jitter: 0.1 };
const schedule = (bounds: Guide = GUIDE) => createPollSchedule({ ...bounds, random: () => 0.5 });
/** Far from 0, as the store's clock is: nothing may hang on `now` being small. */
const T0 = 1.8e12;

/** What a task puts in `progress` at share `x` of its time (and at its `poll`-th poll). */
type Report = (x: number, poll: number) => unknown;

/** How the polls of one task went: when each was made (ms after submission), and why. */
function drive(report: Report, durationMs: number, plan: PollSchedule = schedule()) {
  const times: number[] = [];
  const waits: number[] = [];
  const by: string[] = [];
  let elapsed = plan.delayMs(0);
  let trail: ProgressTrail | undefined;
  for (let attempt = 0; times.length < 10_000; attempt += 1) {
    times.push(elapsed);
    if (elapsed >= durationMs) break;
    const raw = report(elapsed / durationMs, attempt);
    const next = plan.afterRunning({
      attempt,
      trail,
      progress: normalizeProgress(raw),
      now: T0 + elapsed,
    });
    trail = next.trail;
    waits.push(next.waitMs);
    by.push(next.by);
    elapsed += next.waitMs;
  }
  const lagMs = (times.at(-1) ?? 0) - durationMs;
  return { times, waits, by, lagMs, polls: times.length, trail };
}

/** The same task under the guide's schedule alone, as the stages polled before. */
function driveGuide(durationMs: number, bounds: Guide = GUIDE) {
  const plan = schedule(bounds);
  return drive(() => null, durationMs, {
    ...plan,
    afterRunning: (poll) => ({
      ...plan.afterRunning(poll),
      waitMs: plan.delayMs(poll.attempt + 1),
    }),
  });
}

/** The polls made sooner than the guide makes as many on average (none, ever). */
const overBudget = (times: readonly number[], guide: Guide) =>
  times.filter((t, i) => i + 1 > guidePollsWithin(guide, t));

const whole = (x: number) => Math.round(x * 100);
const floored = (x: number) => Math.floor(x * 100) / 100;
const SHAPES = {
  linear: (x: number) => x,
  frontLoaded: (x: number) => Math.sqrt(x),
  backLoaded: (x: number) => x * x,
  stalling: (x: number) => (x < 0.4 ? x * 1.25 : x < 0.6 ? 0.5 : 0.5 + (x - 0.6) * 1.25),
};
const FORMS: Record<string, (fraction: number) => unknown> = {
  "a fraction (0.45)": (f) => whole(f) / 100,
  "a percentage (45)": (f) => whole(f),
  'a string ("45%")': (f) => `${whole(f)}%`,
  'a bare number string ("0.45")': (f) => String(whole(f) / 100),
  "a fraction cut down, not rounded": (f) => Math.floor(f * 100) / 100,
};

describe("the guide's schedule as a bound", () => {
  it("counts the guide's polls at its mean waits: 2, 6, 14 s, then 14.625 s apart", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => guideTimeOfPoll(GUIDE, n))).toEqual([
      2000, 6000, 14_000, 28_625, 43_250, 57_875,
    ]);
    expect(
      [1999, 2000, 13_999, 14_000, 57_875, 3_600_000].map((t) => guidePollsWithin(GUIDE, t)),
    ).toEqual([0, 1, 2, 3, 6, 248]);
    // The jitter only shortens a wait at the cap (it never passes it); none: the cap itself.
    expect(guideMeanMs(GUIDE, 10)).toBe(14_625);
    expect(guideMeanMs({ ...GUIDE, jitter: 0 }, 10)).toBe(15_000);
    expect(guideMeanMs(GUIDE, 1)).toBe(4000);
  });
});

describe("progress-led polling, by progress shape", () => {
  const cases: [string, Report, number, number][] = [
    // shape, what the task reports, its length, the lag it may have at most (ms)
    ["linear, 40 s", (x) => whole(x) / 100, 40_000, 3000],
    ["linear, 10 min", (x) => whole(x) / 100, 600_000, 3000],
    ["linear, 45 min", (x) => whole(x) / 100, 2_700_000, 3000],
    ["front-loaded, 20 min", (x) => whole(SHAPES.frontLoaded(x)), 1_200_000, 3000],
    ["back-loaded, 30 min", (x) => `${whole(SHAPES.backLoaded(x))}%`, 1_800_000, 3000],
    // Cut down, a t² task reads 0 % for its first tenth: 18 s of 3 min, 6 s of 1 min.
    ["back-loaded, 3 min, 0 % at first", (x) => floored(SHAPES.backLoaded(x)), 180_000, 3000],
    ["back-loaded, 1 min, 0 % at first", (x) => floored(SHAPES.backLoaded(x)), 60_000, 3000],
    ["stalling half-way, 12 min", (x) => whole(SHAPES.stalling(x)) / 100, 720_000, 3000],
  ];
  it.each(cases)("%s: polls around the end, never more than the guide", (_, report, ms, lag) => {
    const led = drive(report, ms);
    expect(led.lagMs).toBeGreaterThanOrEqual(0);
    expect(led.lagMs).toBeLessThanOrEqual(lag);
    expect(led.lagMs).toBeLessThan(driveGuide(ms).lagMs);
    expect(led.by).toContain("progress");
    // The bounds, poll by poll: no wait past the cap, and no more polls by any moment than
    // the guide makes by then on average (its jitter, clipped at the cap, shortens waits).
    expect(Math.max(...led.waits)).toBeLessThanOrEqual(GUIDE.maxMs);
    expect(overBudget(led.times, GUIDE)).toEqual([]);
  });

  it.each(cases)("%s, without jitter: never a poll more than the guide's own", (_, report, ms) => {
    const exact: Guide = { ...GUIDE, jitter: 0 };
    const led = drive(report, ms, schedule(exact));
    const guide = driveGuide(ms, exact);
    expect(led.polls).toBeLessThanOrEqual(guide.polls);
    expect(led.lagMs).toBeLessThanOrEqual(guide.lagMs);
    expect(overBudget(led.times, exact)).toEqual([]);
  });

  it.each(Object.entries(FORMS))("reads progress given as %s", (_, form) => {
    // A few lengths, not one: where a single task's polls fall against its end is luck.
    const lags = [200_000, 250_000, 300_000, 350_000, 400_000].map((ms) => {
      const led = drive((x) => form(x), ms);
      expect(led.polls).toBeLessThanOrEqual(guidePollsWithin(GUIDE, led.times.at(-1) ?? 0));
      expect(led.trail?.runs.length).toBeGreaterThan(2);
      return led.lagMs;
    });
    // The acceptance: median ≤ 3 s, and none past its p95 (8 s).
    expect([...lags].sort((a, b) => a - b)[2]).toBeLessThanOrEqual(3000);
    expect(Math.max(...lags)).toBeLessThanOrEqual(8000);
  });

  it("takes a 1 at the start for 1 %, not 100 % (a percentage, or a fraction?)", () => {
    const led = drive((x) => whole(x), 100_000);
    expect(led.trail?.erratic).toBeUndefined();
    expect(led.lagMs).toBeLessThanOrEqual(3000);
  });

  it("keeps to the configured bounds when they are tiny (tests: 5 ms doubling to 20 ms)", () => {
    const tiny: Guide = { initialMs: 5, maxMs: 20, jitter: 0 };
    const led = drive((x) => whole(x) / 100, 600, schedule(tiny));
    const guide = driveGuide(600, tiny);
    expect(Math.max(...led.waits)).toBeLessThanOrEqual(20);
    expect(led.polls).toBeLessThanOrEqual(guide.polls);
    expect(led.lagMs).toBeLessThanOrEqual(20);
    expect(overBudget(led.times, tiny)).toEqual([]);
  });
});

describe("the guide's schedule, exactly, when progress says nothing usable", () => {
  const readings =
    (values: unknown[]): Report =>
    (_, poll) =>
      values[Math.min(poll, values.length - 1)];
  const silent: [string, Report][] = [
    ["absent", () => undefined],
    ["null", () => null],
    ["a string that is no number", () => "diarizing"],
  ];
  it.each(silent)("progress %s: the guide's polls, to the millisecond", (_, report) => {
    const led = drive(report, 400_000);
    expect(new Set(led.by)).toEqual(new Set(["guide"]));
    expect(led.times).toEqual(driveGuide(400_000).times);
  });

  const wanting: [string, Report, number][] = [
    // what progress does, and the poll from which it is found wanting
    ["not increasing", () => 0.3, 1],
    ["going back (erratic)", readings([0.1, 0.3, 0.2, 0.5, 0.6, 0.7]), 2],
    ["leaping (erratic)", readings([0.02, 0.04, 0.06, 0.9, 0.91, 0.92]), 3],
  ];
  it.each(wanting)("progress %s: the guide's waits from then on", (name, report, from) => {
    const led = drive(report, 400_000);
    expect(led.by.slice(0, from)).toContain("progress");
    expect(led.by.slice(from)).not.toContain("progress");
    // The guide's waits (the cap, by then), or later if the polls it led made more.
    const guide = schedule();
    led.waits.slice(from).forEach((wait, i) => {
      expect(wait).toBeGreaterThanOrEqual(guide.delayMs(from + i + 1));
      expect(wait).toBeLessThanOrEqual(GUIDE.maxMs);
    });
    if (name.includes("erratic")) expect(led.trail?.erratic).toBe(true);
  });

  it("follows the guide through a stall, and the progress again once it moves on", () => {
    const led = drive((x) => whole(SHAPES.stalling(x)) / 100, 1_200_000);
    const stallStart = led.times.findIndex((t) => t > 0.4 * 1_200_000);
    const stallEnd = led.times.findIndex((t) => t > 0.6 * 1_200_000);
    expect(led.by.slice(stallStart + 10, stallEnd)).not.toContain("progress");
    expect(led.by.slice(stallEnd)).toContain("progress");
    expect(led.lagMs).toBeLessThanOrEqual(3000);
  });

  it("starts an older record (no trail) as though the guide had made every poll so far", () => {
    const plan = schedule().afterRunning({
      attempt: 7,
      trail: undefined,
      progress: normalizeProgress(0.4),
      now: T0,
    });
    expect(plan.trail.from).toBe(T0 - guideTimeOfPoll(GUIDE, 8));
    // The ninth poll is due no sooner than the guide's ninth.
    expect(plan.waitMs).toBeGreaterThanOrEqual(
      guideTimeOfPoll(GUIDE, 9) - guideTimeOfPoll(GUIDE, 8),
    );
    expect(plan.waitMs).toBeLessThanOrEqual(GUIDE.maxMs);
  });

  it("is a pure function of what it is given", () => {
    const poll = {
      attempt: 3,
      trail: {
        from: T0,
        runs: [
          [T0 + 2000, T0 + 2000, 0.05],
          [T0 + 6000, T0 + 6000, 0.1],
        ],
      },
      progress: normalizeProgress("15%"),
      now: T0 + 14_000,
    } satisfies Parameters<PollSchedule["afterRunning"]>[0] & { trail: ProgressTrail };
    expect(schedule().afterRunning(poll)).toEqual(schedule().afterRunning(poll));
  });
});

describe("a task that reads 0 % at its first poll (queued, or starting slowly)", () => {
  const zero: Report = () => 0;
  const guideTimes = driveGuide(400_000).times;

  it("ends at 10 s, still queued: seen when the guide sees it (14 s), with a poll fewer", () => {
    const led = drive(zero, 10_000);
    const guide = driveGuide(10_000);
    expect(guide.times).toEqual([2000, 6000, 14_000]);
    expect(led.times).toEqual([2000, 14_000]);
    expect(led.lagMs).toBeLessThanOrEqual(guide.lagMs);
  });

  it("is seen no later than the guide sees it, unless it ends before the guide's 2nd poll", () => {
    for (const end of [2_500, 4_000, 6_000, 6_500, 10_000, 14_000, 20_000, 45_000, 100_000]) {
      const seenAt = drive(zero, end).times.at(-1);
      const guideSeenAt = driveGuide(end).times.at(-1) ?? 0;
      // The price of the poll saved: ending 2–6 s after submission, seen at 14 s, not 6 s.
      if (end <= (guideTimes[1] ?? 0)) expect(seenAt).toBe(guideTimes[2]);
      else expect(seenAt).toBeLessThanOrEqual(guideSeenAt);
    }
  });

  it("at 0 % for good: the guide's polls but its second, so its end is seen as the guide's", () => {
    const led = drive(zero, 400_000);
    expect(led.times).toEqual(guideTimes.filter((_, i) => i !== 1));
    expect(led.lagMs).toBe(driveGuide(400_000).lagMs);
    expect(led.by.slice(1)).not.toContain("progress");
    expect(overBudget(led.times, GUIDE)).toEqual([]);
  });

  it("skips by the configured bounds (tests: 5 ms doubling to 20 ms), never past the cap", () => {
    const tiny: Guide = { initialMs: 5, maxMs: 20, jitter: 0 };
    const led = drive(zero, 400, schedule(tiny));
    const guide = driveGuide(400, tiny);
    expect(led.times.slice(0, 3)).toEqual([5, 25, 45]);
    expect(guide.times.slice(0, 4)).toEqual([5, 15, 35, 55]);
    expect(Math.max(...led.waits)).toBeLessThanOrEqual(20);
    expect(led.polls).toBeLessThan(guide.polls);
    expect(overBudget(led.times, tiny)).toEqual([]);
  });

  it("spends the poll saved near the end: a back-loaded task, 2 min, seen within 3 s", () => {
    const led = drive((x) => floored(SHAPES.backLoaded(x)), 120_000);
    const guide = driveGuide(120_000);
    expect(led.times.slice(0, 2)).toEqual([2000, 14_000]);
    expect(led.lagMs).toBeLessThanOrEqual(3000);
    expect(guide.lagMs).toBeGreaterThan(10_000);
    expect(led.polls).toBeLessThanOrEqual(guide.polls);
    expect(overBudget(led.times, GUIDE)).toEqual([]);
  });
});

describe("the finish estimate", () => {
  it("brackets the end of a steady task from whole percentages, rounded or cut down", () => {
    for (const cut of [Math.round, Math.floor]) {
      // A 100 s task polled every 7 s: each reading held from its first poll to its last.
      const runs: [number, number, number][] = [];
      for (let t = 3_000; t < 90_000; t += 7_000) {
        const fraction = cut(t / 1000) / 100;
        const last = runs.at(-1);
        if (last?.[2] === fraction) last[1] = t;
        else runs.push([t, t, fraction]);
      }
      const estimate = estimateFinish(runs.slice(-8), 0);
      expect(estimate?.soonest).toBeLessThanOrEqual(100_000);
      expect(estimate?.latest).toBeGreaterThanOrEqual(100_000);
      expect((estimate?.latest ?? 0) - (estimate?.soonest ?? 0)).toBeLessThan(5_000);
    }
  });

  it("brackets the end of a task that speeds up (t²), where a straight line puts it late", () => {
    for (const cut of [Math.round, Math.floor]) {
      for (const until of [100_000, 130_000, 160_000]) {
        // A 200 s back-loaded task, polled every 15 s from 14 s: 1 %, 4 %, 9 %, 16 %…
        const runs: [number, number, number][] = [];
        for (let t = 14_000; t < until; t += 15_000) {
          const fraction = cut(SHAPES.backLoaded(t / 200_000) * 100) / 100;
          const last = runs.at(-1);
          if (last?.[2] === fraction) last[1] = t;
          else runs.push([t, t, fraction]);
        }
        const estimate = estimateFinish(runs.slice(-8), 0);
        expect(estimate?.soonest).toBeLessThanOrEqual(200_000);
        expect(estimate?.latest).toBeGreaterThanOrEqual(200_000);
        expect((estimate?.latest ?? 0) - (estimate?.soonest ?? 0)).toBeLessThan(30_000);
      }
    }
  });

  it("has no estimate before the progress rises", () => {
    expect(estimateFinish([], 0)).toBeUndefined();
    expect(estimateFinish([[2000, 9000, 0]], 0)).toBeUndefined();
  });
});
