/** How long the HTTP server waits for a client, in milliseconds. */
export interface HttpTimeouts {
  /** From a request's first byte until its headers are complete. */
  headersMs: number;
  /** From a request's first byte until the whole request, body included, has arrived. */
  requestMs: number;
  keepAliveMs: number;
  /** How often Node looks for requests past the first two limits. */
  checkEveryMs: number;
  /** On shutdown, how long requests in flight may finish before their connections are cut. */
  closeGraceMs: number;
}

/**
 * Slack sends small requests and gives up on an ack after 3 s: headers within 5 s and the
 * whole request within 10 s cut a slow-loris connection; on shutdown, requests in flight get
 * Slack's 3 s.
 */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 5_000,
  requestMs: 10_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
  closeGraceMs: 3_000,
};
