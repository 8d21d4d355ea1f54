import { StringDecoder } from "node:string_decoder";
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import { retry } from "../util/backoff.ts";
import { isRetryable, NoteTakerError, NoteTakerTransientError } from "./errors.ts";
import { type RetryPolicy, retryDelayMs } from "./retry-policy.ts";

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
    (thrown, retry) => {
      if (signal?.aborted) throw signal.reason ?? thrown;
      const error = asNoteTakerError(thrown);
      const waitMs = isRetryable(error)
        ? retryDelayMs(policy, retry, error.retryAfterMs)
        : undefined;
      if (waitMs === undefined || retry >= policy.retries || waitMs > policy.maxRetryAfterMs) {
        throw error;
      }
      logger.warn(
        { what, status: error.status, retry: retry + 1, waitMs, reason: error.message },
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

/** A body as UTF-8 text, decoded as it comes; past `maxBytes` it stops and throws `tooLarge()`. */
export async function readTextCapped(
  body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown },
  maxBytes: number,
  tooLarge: () => Error,
): Promise<string> {
  const decoder = new StringDecoder("utf8");
  let text = "";
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    text += decoder.write(chunk);
  }
  return text + decoder.end();
}

/** Parses JSON, or returns undefined: error bodies are often not JSON at all. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
