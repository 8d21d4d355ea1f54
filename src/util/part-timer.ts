/** Times the parts of a sequence (a start-up): each `lap` records the ms since the last. */
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
