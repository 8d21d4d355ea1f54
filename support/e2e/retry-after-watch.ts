import type { FetchFunction } from "../../src/slack/rate-budget/slack-budget.ts";

/** A Web API call sent while a Retry-After the bot had already received was still running. */
export interface RetryAfterBreach {
  method: string;
  /** How long before the window's end the call was sent, ms. */
  earlyMs: number;
}

/**
 * Watches the bot's own Slack transport for Slack's rule "wait the number of seconds in
 * Retry-After before retrying" (https://docs.slack.dev/apis/web-api/rate-limits: limits
 * are per method, per workspace): a call of a method is a breach when the bot sent it after
 * it received a 429 for that method and before that 429's Retry-After ran out. Judged on
 * the bot's side, when it sent and when it received: the fake Slack sees a call arrive when
 * its event loop gets to it, so a call already in flight when the 429 left can reach it
 * later, inside the window, though the bot could not have known of it.
 */
export function retryAfterWatch(inner: FetchFunction = globalThis.fetch) {
  /** Per method: when its newest Retry-After, as received, ends (performance.now()). */
  const windows = new Map<string, number>();
  const breaches: RetryAfterBreach[] = [];
  const fetch: FetchFunction = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = /\/api\/([\w.]+)$/.exec(new URL(url).pathname)?.[1];
    const sentAt = performance.now();
    const until = method === undefined ? undefined : windows.get(method);
    if (method !== undefined && until !== undefined && sentAt < until) {
      breaches.push({ method, earlyMs: Math.round(until - sentAt) });
    }
    const response = await inner(input, init);
    const seconds = Number(response.headers.get("retry-after"));
    if (method !== undefined && response.status === 429 && seconds > 0) {
      const ends = performance.now() + seconds * 1000;
      windows.set(method, Math.max(ends, windows.get(method) ?? 0));
    }
    return response;
  };
  return { fetch, breaches };
}
