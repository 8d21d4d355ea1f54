import { BACKOFFS, backoffDelayMs } from "../util/backoff.ts";

/** Only transient failures are retried: a refused request would be refused again. */
export interface RetryPolicy {
  /** Attempts after the first one. */
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for in-line: the error goes up instead. */
  maxRetryAfterMs: number;
  jitter: number;
}

/** Production: 4 retries over roughly 0.5 + 1 + 2 + 4 s, honouring `Retry-After` up to a minute. */
export const defaultRetryPolicy: RetryPolicy = {
  retries: 4,
  minDelayMs: BACKOFFS.noteServiceRequest.baseMs,
  maxDelayMs: BACKOFFS.noteServiceRequest.maxMs,
  maxRetryAfterMs: 60_000,
  jitter: BACKOFFS.noteServiceRequest.jitter,
};

/** Tests: same logic, millisecond waits. */
export const fastRetryPolicy: RetryPolicy = {
  retries: 3,
  minDelayMs: BACKOFFS.fast.baseMs,
  maxDelayMs: BACKOFFS.fast.maxMs,
  maxRetryAfterMs: 2_000,
  jitter: 0,
};

/** The wait before retry `attempt` (0-based); the server's `Retry-After` wins. */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const { minDelayMs: baseMs, maxDelayMs: maxMs, jitter } = policy;
  return backoffDelayMs({ baseMs, maxMs, jitter }, attempt, random);
}

/** Reads `Retry-After` as seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (header === undefined || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000));
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
