/**
 * Times the parts of a sequence (a start-up, say): each `lap` records the whole
 * milliseconds since the previous one (the first: since `from`, `performance.now()` time)
 * under its name, for one log line.
 */
export function partTimer(from = performance.now()): {
  lap(name: string): void;
  readonly laps: Record<string, number>;
} {
  const laps: Record<string, number> = {};
  let last = from;
  return {
    lap(name) {
      const now = performance.now();
      laps[name] = Math.round(now - last);
      last = now;
    },
    laps,
  };
}
