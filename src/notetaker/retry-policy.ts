import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import { BACKOFFS, backoffDelayMs, retry } from "../util/backoff.ts";
import { isRetryable, NoteTakerError, NoteTakerTransientError } from "./errors.ts";

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

/** Waits between attempts; tests pass one that records the waits instead of sleeping. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, signal ? { signal } : undefined);
};

export interface RetryContext {
  policy: RetryPolicy;
  logger: Logger;
  sleep: Sleep;
}

/** Retries `attempt` while it fails transiently, waiting as the policy or `Retry-After` says. */
export function withRetries<T>(
  what: string,
  context: RetryContext,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  const { policy, logger, sleep } = context;
  return retry(
    attempt,
    (thrown, failures) => {
      if (signal?.aborted) throw signal.reason ?? thrown;
      const error = asNoteTakerError(thrown);
      const waitMs = isRetryable(error)
        ? retryDelayMs(policy, failures, error.retryAfterMs)
        : undefined;
      if (waitMs === undefined || failures >= policy.retries || waitMs > policy.maxRetryAfterMs) {
        throw error;
      }
      logger.warn(
        { what, status: error.status, retry: failures + 1, waitMs, reason: error.message },
        "note service call failed; retrying",
      );
      return waitMs;
    },
    (ms) => sleep(ms, signal),
  );
}

/** Anything thrown by the HTTP stack that is not ours is a network failure: transient. */
function asNoteTakerError(thrown: unknown): NoteTakerError {
  if (thrown instanceof NoteTakerError) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new NoteTakerTransientError(`Network error: ${message}`, { cause: thrown });
}
