/**
 * The lag benchmark's simulated tasks (`poll-lag.ts`): virtual time, a seeded PRNG, no real
 * waiting. Each task runs for its duration and reports its progress, as the Note Service
 * may, at every poll; a schedule decides each wait, as the transcribing and writing steps
 * ask it to; the lag is the time from the task's end to the poll that sees it.
 */
import {
  createPollSchedule,
  normalizeProgress,
  type PollSchedule,
  type ProgressTrail,
} from "../../src/notetaker/index.ts";
import { random as seeded } from "./fleet-common.ts";

/** How a task's progress moves with the share of its time spent (x: 0..1 → 0..1). */
export const SHAPES = {
  linear: (x: number) => x,
  /** Half the work in the first quarter of the time. */
  "front-loaded": (x: number) => Math.sqrt(x),
  /** Half the work in the last 30 % of the time. */
  "back-loaded": (x: number) => x * x,
  /** Stands still at 50 % from 40 % to 60 % of the time, then goes on at the same pace. */
  stalling: (x: number) => (x < 0.4 ? x * 1.25 : x < 0.6 ? 0.5 : 0.5 + (x - 0.6) * 1.25),
  /** No `progress` at all. */
  absent: () => null,
  /** A number at random in 0..1 at each poll: back and forth, leaps. */
  erratic: () => Number.NaN,
} as const satisfies Record<string, (x: number) => number | null>;
export type Shape = keyof typeof SHAPES;
export const SHAPE_NAMES = Object.keys(SHAPES) as Shape[];

/** The forms `progress` takes (the emulator's knobs): 0.45, 45, "45%". */
const FORMS = ["fraction", "percent", "string"] as const;

export interface SimTask {
  shape: Shape;
  durationMs: number;
  form: (typeof FORMS)[number];
  /** Whole percentages rounded to nearest (as the emulator) or down. */
  rounding: "round" | "floor";
}

export interface SimOutcome {
  lagMs: number;
  polls: number;
}

export interface SimBounds {
  initialMs: number;
  maxMs: number;
  jitter: number;
}

/** `count` tasks of `shape`, durations spread evenly on a log scale over [minMs, maxMs]. */
export function simTasks(
  shape: Shape,
  count: number,
  seed: number,
  minMs = 30_000,
  maxMs = 3_600_000,
): SimTask[] {
  const draw = seeded(seed);
  return Array.from({ length: count }, () => ({
    shape,
    durationMs: Math.round(minMs * (maxMs / minMs) ** draw()),
    form: FORMS[Math.floor(draw() * FORMS.length)] ?? "fraction",
    rounding: draw() < 0.5 ? "round" : "floor",
  }));
}

/** The schedules compared: the guide's as the stages used it, and the progress-led one. */
export type ScheduleKind = "guide" | "progress";

export function simSchedule(kind: ScheduleKind, bounds: SimBounds, seed: number): PollSchedule {
  const schedule = createPollSchedule({ ...bounds, random: seeded(seed) });
  if (kind === "progress") return schedule;
  return {
    delayMs: schedule.delayMs,
    afterRunning: (poll) => ({
      waitMs: schedule.delayMs(poll.attempt + 1),
      trail: poll.trail ?? { from: poll.now, runs: [] },
      by: "guide",
    }),
  };
}

/** Runs one task under `schedule`, in virtual time from `t0`. */
export function simulate(
  task: SimTask,
  schedule: PollSchedule,
  seed: number,
  t0 = 1.8e12,
): SimOutcome {
  const draw = seeded(seed);
  let elapsed = schedule.delayMs(0);
  let trail: ProgressTrail | undefined;
  for (let attempt = 0; ; attempt += 1) {
    if (elapsed >= task.durationMs) return { lagMs: elapsed - task.durationMs, polls: attempt + 1 };
    const raw = reported(task, elapsed / task.durationMs, draw);
    const plan = schedule.afterRunning({
      attempt,
      trail,
      progress: normalizeProgress(raw),
      now: t0 + elapsed,
    });
    trail = plan.trail;
    elapsed += plan.waitMs;
  }
}

/** What the task puts in `progress` at share `x` of its time. */
function reported(task: SimTask, x: number, draw: () => number): number | string | undefined {
  const exact = task.shape === "erratic" ? draw() : SHAPES[task.shape](x);
  if (exact === null) return undefined;
  const percent = task.rounding === "round" ? Math.round(exact * 100) : Math.floor(exact * 100);
  if (task.form === "percent") return percent;
  if (task.form === "string") return `${percent}%`;
  return percent / 100;
}
