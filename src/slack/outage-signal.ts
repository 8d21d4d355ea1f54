import type { FetchFunction } from "./rate-budget/slack-budget.ts";

/**
 * `fetch`, calling `onOutage` on a network error, a timeout or a 5xx: signs Slack may be down
 * (an `ok: false` or a 429 says it is up; a request its caller aborted says nothing).
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
