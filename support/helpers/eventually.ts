/** How {@link eventually} waits. */
export interface EventuallyOptions {
  /** How long to keep looking (default 10 s): a ceiling for a loaded machine, not a wait. */
  timeoutMs?: number;
  /** Between two reads (default 10 ms). */
  intervalMs?: number;
  /** What is awaited, for the error. */
  what?: string;
  /** More to say when it times out (a child process's output, say). */
  context?: () => string;
  /** On timeout, resolve with the last value instead of throwing (a soft wait). */
  orLast?: boolean;
}

/**
 * The one polling wait of the tests: reads `read` until `done` accepts its value and returns
 * that value, or fails after `timeoutMs` naming what it waited for and the last value seen.
 * A test waits for what it needs to see, never for a fixed time.
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  options: number | EventuallyOptions = {},
): Promise<T> {
  const o = typeof options === "number" ? { timeoutMs: options } : options;
  const deadline = performance.now() + (o.timeoutMs ?? 10_000);
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) {
      if (o.orLast === true) return value;
      const shown = JSON.stringify(value)?.slice(0, 800);
      const what = o.what === undefined ? "" : ` for ${o.what}`;
      const context = o.context?.() ?? "";
      throw new Error(`gave up waiting${what}; last: ${shown}${context ? `\n${context}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, o.intervalMs ?? 10));
  }
}
