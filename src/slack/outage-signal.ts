import type { FetchFunction } from "./rate-budget/slack-budget.ts";

/**
 * The same `fetch`, telling `onOutage` of every Slack request that got no answer (a network
 * error, a timeout) or a 5xx: signs that Slack may be down, as opposed to Slack refusing a
 * call (an `ok: false` answer, a 429), which says it is up. A request its caller gave up on
 * is neither.
 */
export function noticeOutages(fetch: FetchFunction, onOutage: () => void): FetchFunction {
  return async (input, init) => {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if ((error as { name?: unknown }).name !== "AbortError") onOutage();
      throw error;
    }
    if (response.status >= 500) onOutage();
    return response;
  };
}
