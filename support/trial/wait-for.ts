import type { SlackWatch } from "./slack-watch.ts";

/** How often the trial looks at the stand-in while it waits: often enough to feel live. */
const LOOK_EVERY_MS = 100;

/**
 * Looks at the stand-in (printing what is new) until `get()` gives a value `until` accepts;
 * resolves with it. Rejects with "no <what> within N s" past `stepTimeoutMs`.
 */
export async function waitFor<T>(
  ctx: { watch: SlackWatch; stepTimeoutMs: number },
  get: () => T,
  until: (value: T) => boolean,
  what: string,
): Promise<T> {
  const deadline = Date.now() + ctx.stepTimeoutMs;
  for (;;) {
    ctx.watch.look();
    const value = get();
    if (until(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`no sign of ${what} within ${Math.round(ctx.stepTimeoutMs / 1000)} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
  }
}
