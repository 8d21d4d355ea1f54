import { betterFit, type Point, quickeningCurve, slowingCurve } from "./finish-curves.ts";

/** When a task will finish, from the progress its polls saw: a pace, and bounds on its end. */

/** Polls in a row that saw the same progress: [first seen, last seen, fraction 0..1]. */
export type Run = [first: number, last: number, fraction: number];

export interface FinishEstimate {
  /** Progress per millisecond. */
  rate: number;
  /** The task ends no sooner than this (epoch ms)… */
  soonest: number;
  /** …and no later, if it keeps its pace. */
  latest: number;
  /** The typical rise between two readings that differ (at least their resolution). */
  step: number;
  /** Where the pace puts the task's progress at `time`. */
  progressAt(time: number): number;
}

/** The pace is drawn through at most this many of the latest rises. */
const POINTS = 6;
/** The bounds come from this many of the latest readings. */
const BOUNDS = 4;
/** A rise that took this many times the others' typical time per unit is a stall: cut there. */
const STALL_FACTOR = 4;

/** From `runs` (oldest first, each higher) and `from`, the task's start; undefined: no pace. */
export function estimateFinish(runs: readonly Run[], from: number): FinishEstimate | undefined {
  const resolution = resolutionOf(runs.map(([, , fraction]) => fraction));
  const pace = runs.length >= 2 ? paceOfRises(runs, resolution) : paceSinceStart(runs, from);
  if (pace === undefined) return undefined;
  const rises = runs.slice(1).map(([, , fraction], i) => fraction - (runs[i]?.[2] ?? fraction));
  const latestRuns = runs.slice(-BOUNDS);
  let bounds = boundsOf(latestRuns, pace, resolution);
  // Readings that no one line explains (the pace changed), or bounds the task has outlived
  // while still rising: the latest reading alone.
  const lastSeen = runs.at(-1)?.[1] ?? Number.NEGATIVE_INFINITY;
  if (bounds.soonest > bounds.latest || bounds.latest < lastSeen) {
    bounds = boundsOf(latestRuns.slice(-1), pace, resolution);
  }
  return {
    rate: pace.rate,
    ...bounds,
    step: Math.max(resolution, middle(rises)),
    progressAt: (time) => {
      // From the latest point, at the pace the task has there.
      const { time: at, fraction } = pace.latest;
      const ahead = pace.toEnd(fraction) - pace.toEnd(Math.min(1, fraction + 0.01));
      return fraction + (time - at) * (ahead > 0 ? 0.01 / ahead : pace.rate);
    },
  };
}

interface Pace {
  /** Progress per ms, and a point of the line: (time, fraction)… */
  rate: number;
  time: number;
  fraction: number;
  /** …how far off the rate may be (a share of it), and the points off the line (ms). */
  rateError: number;
  timeErrorMs: number;
  /** How long the task takes from progress `fraction` to its end (ms). */
  toEnd(fraction: number): number;
  /** The latest point the pace was drawn through. */
  latest: Point;
}

/**
 * Each reading v, held from `first` to `last`, says the progress was at least v (less half a
 * step, were it rounded) at `first` and below the next step at `last`: the line reaches 100 %
 * within the bounds that follow, widened by the pace's own error.
 */
function boundsOf(runs: readonly Run[], pace: Pace, resolution: number) {
  let soonest = Number.NEGATIVE_INFINITY;
  let latest = Number.POSITIVE_INFINITY;
  for (const [first, last, fraction] of runs) {
    const slack = pace.rateError * pace.toEnd(fraction) + pace.timeErrorMs;
    soonest = Math.max(soonest, last + pace.toEnd(fraction + resolution) - slack);
    latest = Math.min(latest, first + pace.toEnd(fraction - resolution / 2) + slack);
  }
  return { soonest, latest };
}

/** The pace through the moments the readings after the first were reached. */
function paceOfRises(runs: readonly Run[], resolution: number): Pace | undefined {
  const points = afterLastStall(crossings(runs, resolution)).slice(-POINTS);
  // One rise only: drawn from the last poll that saw the reading before it.
  const first = runs[0];
  if (points.length === 1 && first !== undefined) {
    points.unshift({ time: first[1], fraction: first[2] });
  }
  if (points.length < 2) return undefined;
  const n = points.length;
  const time = points.reduce((sum, p) => sum + p.time, 0) / n;
  const fraction = points.reduce((sum, p) => sum + p.fraction, 0) / n;
  let across = 0;
  let spread = 0;
  for (const p of points) {
    across += (p.time - time) * (p.fraction - fraction);
    spread += (p.time - time) ** 2;
  }
  const rate = spread > 0 ? across / spread : 0;
  if (!(rate > 0) || !Number.isFinite(rate)) return undefined;
  const off = points.map((p) => p.fraction - (fraction + (p.time - time) * rate));
  const squares = off.reduce((sum, o) => sum + o * o, 0);
  const rateError = n > 2 ? Math.sqrt(squares / (n - 2) / spread) / rate : 0.2;
  const curve = betterFit(
    n >= 4 ? slowingCurve(points, rate) : undefined,
    quickeningCurve(points, rate),
  );
  return {
    rate,
    time,
    fraction,
    latest: points[n - 1] ?? { time, fraction },
    rateError: Math.min(0.5, Math.max(0.02, rateError)),
    timeErrorMs: curve?.scatterMs ?? Math.sqrt(squares / n) / rate,
    toEnd: curve?.toEnd ?? ((f) => Math.max(0, 1 - f) / rate),
  };
}

/** One reading so far: the pace since the task began, roughly. */
function paceSinceStart(runs: readonly Run[], from: number): Pace | undefined {
  const run = runs[0];
  if (run === undefined || !(run[2] > 0) || !(run[0] > from)) return undefined;
  const rate = run[2] / (run[0] - from);
  const toEnd = (f: number) => Math.max(0, 1 - f) / rate;
  const latest = { time: run[0], fraction: run[2] };
  return { rate, ...latest, latest, rateError: 0.3, timeErrorMs: 0, toEnd };
}

/**
 * When each reading after the first was reached: between the last poll that saw the one
 * before and the first that saw it. A rise of one step was crossed anywhere in that gap
 * (its middle); a rise of many steps near its end (readings that are nearly exact).
 */
function crossings(runs: readonly Run[], resolution: number): Point[] {
  const points: Point[] = [];
  for (let i = 1; i < runs.length; i += 1) {
    const before = runs[i - 1];
    const run = runs[i];
    if (before === undefined || run === undefined) continue;
    const gap = Math.max(0, run[0] - before[1]);
    const share = resolution > 0 ? Math.min(1, resolution / (run[2] - before[2])) : 0;
    points.push({ time: run[0] - (gap * share) / 2, fraction: run[2] });
  }
  return points;
}

/** The points after the last rise that took far longer than the others (a stall). */
function afterLastStall(points: readonly Point[]): Point[] {
  const paces: number[] = [];
  for (let i = 1; i < points.length; i += 1) {
    const a = points[i - 1];
    const b = points[i];
    if (a !== undefined && b !== undefined)
      paces.push((b.time - a.time) / (b.fraction - a.fraction));
  }
  if (paces.length < 3) return [...points];
  let start = 0;
  paces.forEach((pace, i) => {
    const others = paces.filter((_, j) => j !== i);
    if (pace > STALL_FACTOR * middle(others)) start = i + 1;
  });
  return points.slice(Math.min(start, points.length - 2));
}

/** 0.01 when every reading is a whole percentage, 0.001 for tenths of one, else 0. */
function resolutionOf(fractions: readonly number[]): number {
  for (const step of [0.01, 0.001]) {
    if (fractions.every((f) => Math.abs(f / step - Math.round(f / step)) < 1e-6)) return step;
  }
  return 0;
}

/** The median (the lower middle for an even count); 0 for none. */
function middle(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}
