/** How long the HTTP server waits for a client, in milliseconds. */
export interface HttpTimeouts {
  /** From a request's first byte until its headers are complete. */
  headersMs: number;
  /** From a request's first byte until the whole request, body included, has arrived. */
  requestMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveMs: number;
  /** How often Node looks for requests past the first two limits. */
  checkEveryMs: number;
  /** On shutdown, how long requests in flight may finish before their connections are cut. */
  closeGraceMs: number;
}

/**
 * Slack sends small requests (a few kB) from its data centres, all at once, and gives up on
 * an ack after 3 s; a request still arriving after that is worthless even if it is real. So:
 * - headers within 5 s and the whole request within 10 s — generous for any real client,
 *   and a slow-loris connection (headers or body trickled) is cut instead of held for Node's
 *   defaults of 60 s and 300 s;
 * - idle keep-alive connections closed after 5 s (Node's default): Slack and the compose
 *   file's nginx open connections as they need them, and a closed idle socket costs nothing;
 * - Node checks the first two every second, not every 30 s (its default), so a limit means
 *   what it says;
 * - on shutdown, 3 s (Slack's ack window) for requests in flight: after that their answer
 *   would be ignored anyway.
 */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 5_000,
  requestMs: 10_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
  closeGraceMs: 3_000,
};
