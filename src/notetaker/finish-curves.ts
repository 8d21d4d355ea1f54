/** Curves a task's pace may follow to its end, fitted to the moments its readings were reached. */

export interface Point {
  time: number;
  fraction: number;
}

export interface Curve {
  /** How far, in time, the points lie off the curve (root mean square, ms). */
  scatterMs: number;
  toEnd(fraction: number): number;
}

export function betterFit(a: Curve | undefined, b: Curve | undefined): Curve | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return b.scatterMs < a.scatterMs ? b : a;
}

/**
 * Time as a parabola in progress, through at least four points: a task that slows down (or
 * speeds up a little) keeps doing so to its end. Undefined when the bend would make time run
 * back before 100 %, or change the pace more than fourfold.
 */
export function slowingCurve(points: readonly Point[], rate: number): Curve | undefined {
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
export function quickeningCurve(points: readonly Point[], rate: number): Curve | undefined {
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
