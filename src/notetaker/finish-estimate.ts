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

interface Curve {
  /** How far, in time, the points lie off the curve (root mean square, ms). */
  scatterMs: number;
  toEnd(fraction: number): number;
}

function betterFit(a: Curve | undefined, b: Curve | undefined): Curve | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return b.scatterMs < a.scatterMs ? b : a;
}

/**
 * Time as a parabola in progress, through at least four points: a task that slows down (or
 * speeds up a little) keeps doing so to its end. Undefined when the bend would make time run
 * back before 100 %, or change the pace more than fourfold.
 */
function slowingCurve(points: readonly Point[], rate: number): Curve | undefined {
  const mean = points.reduce((sum, p) => sum + p.fraction, 0) / points.length;
  const fit = parabola(points.map((p) => [p.fraction - mean, p.time]));
  if (fit === undefined) return undefined;
  const [c0, c1, c2] = fit;
  const at = (f: number) => c0 + c1 * (f - mean) + c2 * (f - mean) ** 2;
  const slopeAt = (f: number) => c1 + 2 * c2 * (f - mean);
  const lowest = Math.min(...points.map((p) => p.fraction));
  const linear = 1 / rate;
  const endSlope = slopeAt(1);
  if (!(slopeAt(lowest) > 0 && endSlope > linear / 4 && endSlope < linear * 4)) return undefined;
  return curve(points, at);
}

/**
 * Progress as a parabola in time, through at least three points: a task that speeds up (a
 * back-loaded one, whose line would put its end too late) keeps doing so to its end.
 * Undefined unless it bends upward, rises from its first point on, and reaches 100 % at a
 * pace within fourfold of the line's.
 */
function quickeningCurve(points: readonly Point[], rate: number): Curve | undefined {
  const first = points[0];
  const last = points.at(-1);
  if (points.length < 3 || first === undefined || last === undefined) return undefined;
  // Time centred and scaled to about ±1, so that its powers stay well apart from the others.
  const mean = points.reduce((sum, p) => sum + p.time, 0) / points.length;
  const span = last.time - first.time;
  if (!(span > 0)) return undefined;
  const fit = parabola(points.map((p) => [(p.time - mean) / span, p.fraction]));
  if (fit === undefined) return undefined;
  const [c0, c1, c2] = fit;
  const slopeAt = (v: number) => (c1 + 2 * c2 * v) / span;
  if (!(c2 > 0 && slopeAt((first.time - mean) / span) > 0)) return undefined;
  // Where the rising branch reaches progress f.
  const reach = (f: number) =>
    (-c1 + Math.sqrt(Math.max(0, c1 * c1 - 4 * c2 * (c0 - Math.min(1, f))))) / (2 * c2);
  const endSlope = slopeAt(reach(1));
  if (!(endSlope > rate / 4 && endSlope < rate * 4)) return undefined;
  return curve(points, (f) => mean + reach(f) * span);
}

/** A curve given as the time at which it reaches each fraction. */
function curve(points: readonly Point[], timeAt: (fraction: number) => number): Curve {
  const off = points.map((p) => p.time - timeAt(p.fraction));
  const scatterMs = Math.sqrt(off.reduce((sum, o) => sum + o * o, 0) / points.length);
  const end = timeAt(1);
  return { scatterMs, toEnd: (f) => Math.max(0, end - timeAt(Math.min(1, f))) };
}

/** y = c0 + c1·x + c2·x², least squares (normal equations, Cramer's rule); x near 0. */
function parabola(
  xy: readonly (readonly [number, number])[],
): [number, number, number] | undefined {
  const s = [0, 0, 0, 0, 0];
  const r = [0, 0, 0];
  for (const [x, y] of xy) {
    for (let k = 0; k <= 4; k += 1) s[k] = (s[k] ?? 0) + x ** k;
    for (let k = 0; k <= 2; k += 1) r[k] = (r[k] ?? 0) + y * x ** k;
  }
  const [s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0] = s;
  const [r0 = 0, r1 = 0, r2 = 0] = r;
  const det3 = (a: number[], b: number[], c: number[]) =>
    (a[0] ?? 0) * ((b[1] ?? 0) * (c[2] ?? 0) - (b[2] ?? 0) * (c[1] ?? 0)) -
    (a[1] ?? 0) * ((b[0] ?? 0) * (c[2] ?? 0) - (b[2] ?? 0) * (c[0] ?? 0)) +
    (a[2] ?? 0) * ((b[0] ?? 0) * (c[1] ?? 0) - (b[1] ?? 0) * (c[0] ?? 0));
  const det = det3([s0, s1, s2], [s1, s2, s3], [s2, s3, s4]);
  if (!(Math.abs(det) > 0)) return undefined;
  return [
    det3([r0, s1, s2], [r1, s2, s3], [r2, s3, s4]) / det,
    det3([s0, r0, s2], [s1, r1, s3], [s2, r2, s4]) / det,
    det3([s0, s1, r0], [s1, s2, r1], [s2, s3, r2]) / det,
  ];
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

interface Point {
  time: number;
  fraction: number;
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
