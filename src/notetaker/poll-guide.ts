/** The guide's poll schedule as a bound: its waits, and how many polls it makes in a time. */
export interface Guide {
  /** The first wait, doubling… */
  initialMs: number;
  /** …up to this cap. */
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
