/** What the budget reads of a Slack Web API request and answer, and the 429 it answers itself. */

/** `…/api/chat.update` → `chat.update`; undefined for other URLs. */
export function apiMethodOf(url: string): string | undefined {
  const match = /\/api\/([a-zA-Z]+(?:\.[a-zA-Z0-9]+)+)$/.exec(new URL(url).pathname);
  return match?.[1];
}

export function channelOf(body: RequestInit["body"]): string | undefined {
  if (typeof body === "string") return new URLSearchParams(body).get("channel") ?? undefined;
  if (body instanceof URLSearchParams) return body.get("channel") ?? undefined;
  return undefined;
}

/** Seconds; 1 when unreadable. */
export function retryAfterOf(response: Response): number {
  const seconds = Number.parseInt(response.headers.get("retry-after") ?? "", 10);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 1;
}

export function rateLimitedResponse(closedMs: number): Response {
  return new Response(JSON.stringify({ ok: false, error: "ratelimited" }), {
    status: 429,
    headers: {
      "content-type": "application/json",
      "retry-after": String(Math.ceil(closedMs / 1000)),
    },
  });
}
