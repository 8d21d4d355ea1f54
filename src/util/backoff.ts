import { setTimeout as delay } from "node:timers/promises";

/** The one rule for every retry, reconnection and poll wait, and the named policies using it. */
export interface Backoff {
  /** The wait before attempt 0 (the first retry or poll). */
  baseMs: number;
  /** No wait grows past this (jitter included, with `spread`). */
  maxMs: number;
  /** How much each wait grows over the one before; default 2 (doubling). */
  factor?: number;
  /** Fraction of the wait added at random (0.2 → up to +20 %); default none. */
  jitter?: number;
  /** The jitter is added or removed (±), and the wait stays within 0…`maxMs`. */
  spread?: boolean;
}

/** The wait before attempt `attempt` (0-based) under `backoff`, in whole milliseconds. */
export function backoffDelayMs(
  backoff: Backoff,
  attempt: number,
  random: () => number = Math.random,
): number {
  // Past 30 doublings every sane policy is at its cap; the clamp keeps the power finite.
  const exponent = Math.min(Math.max(0, attempt), 30);
  const base = Math.min(backoff.maxMs, backoff.baseMs * (backoff.factor ?? 2) ** exponent);
  const jitter = backoff.jitter ?? 0;
  if (backoff.spread === true) {
    const spread = base * jitter * (2 * random() - 1);
    return Math.max(0, Math.min(backoff.maxMs, Math.round(base + spread)));
  }
  return Math.round(base * (1 + jitter * random()));
}

/**
 * Runs `attempt` until it succeeds, waiting between tries as `again` says: the wait before
 * the next try (retry 0 is the first), or undefined to give up and throw. `again` may throw
 * an error of its own instead of the attempt's.
 */
export async function retry<T>(
  attempt: () => Promise<T>,
  again: (error: unknown, retry: number) => number | undefined,
  sleep: (ms: number) => Promise<unknown> = (ms) => delay(ms),
): Promise<T> {
  for (let failures = 0; ; failures++) {
    try {
      return await attempt();
    } catch (error) {
      const waitMs = again(error, failures);
      if (waitMs === undefined) throw error;
      await sleep(waitMs);
    }
  }
}

/** In-line waits (a request awaited) stay short; background ones may grow long. */
export const BACKOFFS = {
  /** A Note Service request retried in-line: 0.5, 1, 2, 4 s (+20 %), at most 8 s. */
  noteServiceRequest: { baseMs: 500, maxMs: 8_000, jitter: 0.2 },
  /** Polls of a Note Service task (the guide's): POLL_INITIAL_MS and POLL_MAX_MS default here. */
  notePoll: { baseMs: 2_000, maxMs: 15_000, jitter: 0.1, spread: true },
  /** A job step that failed for a passing reason: 2 s doubling to 5 min (+20 %). */
  jobStep: { baseMs: 2_000, maxMs: 5 * 60_000, jitter: 0.2 },
  /** Reconnecting to Redis: never giving up; the low cap lets `close()` exit soon. */
  redisReconnect: { baseMs: 100, maxMs: 1_000, jitter: 0.1 },
  /** Reaching Slack again (start-up, Socket Mode): 1 s doubling to 30 s. */
  slackReconnect: { baseMs: 1_000, maxMs: 30_000 },
  /** Replaying the request journal while the store still fails: 1 s doubling to 10 s. */
  journalReplay: { baseMs: 1_000, maxMs: 10_000 },
  /** Giving back jobs a store failure left leased: 1 s doubling to 10 s. */
  giveBack: { baseMs: 1_000, maxMs: 10_000 },
  /** Sending again a Slack call whose answer was lost: 250 ms, growing fourfold. */
  slackResend: { baseMs: 250, maxMs: 60_000, factor: 4 },
  /** Tests: the same rules, millisecond waits. */
  fast: { baseMs: 1, maxMs: 5 },
} as const satisfies Record<string, Backoff>;

/** 408, 429 and 5xx: the one rule for the Note Service, its result links and Slack downloads. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}
