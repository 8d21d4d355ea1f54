import { GatewayError } from "../../jobs/index.ts";

/** Platform errors that clear up by themselves; every other `{ok:false}` needs a person. */
const TRANSIENT_PLATFORM_ERRORS = new Set([
  "ratelimited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "timeout",
]);

/**
 * Wraps an error of `@slack/web-api` in a {@link GatewayError}, saying whether trying again
 * can help: rate limits, network and 5xx trouble can; `channel_not_found`, `not_in_channel`,
 * `invalid_auth` and the like cannot.
 */
export function toGatewayError(error: unknown, what: string): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: unknown }).code;
  const platform = (error as { data?: { error?: unknown } }).data?.error;
  const transient =
    code === "slack_webapi_rate_limited_error" ||
    code === "slack_webapi_request_error" ||
    code === "slack_webapi_http_error" ||
    (typeof platform === "string" && TRANSIENT_PLATFORM_ERRORS.has(platform));
  const reason =
    typeof platform === "string"
      ? platform
      : error instanceof Error
        ? error.message
        : String(error);
  const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
  return new GatewayError(`Slack ${what} failed: ${reason}`, {
    transient,
    // WebAPIRateLimitedError: Slack's Retry-After, in seconds.
    retryAfterMs: typeof retryAfter === "number" ? retryAfter * 1000 : undefined,
    cause: error,
  });
}

/** The Slack platform error code of a Web API error, if it is one. */
export function platformErrorOf(error: unknown): string | undefined {
  const platform = (error as { data?: { error?: unknown } }).data?.error;
  return typeof platform === "string" ? platform : undefined;
}
