import { type Failure, SlackPortError, type WaitReason } from "../../jobs/index.ts";
import { InstallUnavailable } from "../installs/token-source.ts";
import { type DownloadTrouble, SlackDownloadError } from "./download-slack-file.ts";

/**
 * Platform errors that clear up by themselves; every other `{ok:false}` needs a person
 * (rate limits, and Slack's documented transient errors: "likely due to a transient issue
 * on our end", https://docs.slack.dev/reference/methods/auth.test).
 */
export const TRANSIENT_PLATFORM_ERRORS: ReadonlySet<string> = new Set([
  "ratelimited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "timeout",
]);

/**
 * What each trouble of a download becomes: the failure the job ends with when trying again
 * cannot help or the tries run out, and why it waits meanwhile (the status message says).
 */
const DOWNLOAD_OUTCOMES: Record<DownloadTrouble, { failure: Failure["code"]; wait?: WaitReason }> =
  {
    unavailable: { failure: "download_unavailable", wait: "slack_files" },
    cut_off: { failure: "download_cut", wait: "slack_download_cut" },
    disk_full: { failure: "disk_full", wait: "disk_full" },
    // Nothing for the person to know: the next try writes the file again.
    vanished: { failure: "download_failed" },
    refused: { failure: "download_refused" },
    failed: { failure: "download_failed" },
  };

/**
 * Wraps an error of `@slack/web-api` (or of a file download) in a {@link SlackPortError},
 * saying whether trying again can help: rate limits, network and 5xx trouble can;
 * `channel_not_found`, `not_in_channel`, `invalid_auth` and the like cannot. A download
 * keeps its own nature and names its cause (see {@link DOWNLOAD_OUTCOMES}).
 */
export function toGatewayError(error: unknown, what: string): SlackPortError {
  if (error instanceof SlackPortError) return error;
  // No token to call with at all: no try, here or later, will have one until the app is
  // installed again. Final for the job, whatever the call (a Web API call or a download).
  const unavailable = installUnavailableIn(error);
  if (unavailable !== undefined) {
    return new SlackPortError(`Slack ${what} failed: ${unavailable.message}`, {
      transient: false,
      failure: "install_unavailable",
      cause: error,
    });
  }
  if (error instanceof SlackDownloadError) {
    const outcome = DOWNLOAD_OUTCOMES[error.trouble];
    return new SlackPortError(`Slack ${what} failed: ${error.message}`, {
      transient: error.transient,
      failure: outcome.failure,
      waiting: outcome.wait,
      cause: error,
    });
  }
  const code = (error as { code?: unknown }).code;
  const platform = platformErrorOf(error);
  const transient =
    code === "slack_webapi_rate_limited_error" ||
    code === "slack_webapi_request_error" ||
    code === "slack_webapi_http_error" ||
    (platform !== undefined && TRANSIENT_PLATFORM_ERRORS.has(platform));
  const reason = platform ?? (error instanceof Error ? error.message : String(error));
  const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
  return new SlackPortError(`Slack ${what} failed: ${reason}`, {
    transient,
    // WebAPIRateLimitedError: Slack's Retry-After, in seconds.
    retryAfterMs: typeof retryAfter === "number" ? retryAfter * 1000 : undefined,
    cause: error,
  });
}

/**
 * The {@link InstallUnavailable} behind an error: thrown as it is (a download's token), or
 * the cause of the Web API client's request error (the client's `fetch` asks for the token).
 */
export function installUnavailableIn(error: unknown): InstallUnavailable | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof InstallUnavailable) return current;
    current = current.cause ?? (current as { original?: unknown }).original;
  }
  return undefined;
}

/** The Slack platform error code of a Web API error, if it is one. */
export function platformErrorOf(error: unknown): string | undefined {
  const platform = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  return typeof platform === "string" ? platform : undefined;
}

/**
 * Whether a failed Web API call may still have been carried out: Slack's answer did not
 * come back as one (a reset, a timeout, a 5xx from Slack or a proxy on the way), so a
 * message or file may be there. Only Slack's own refusal (`ok: false`) and its 429 say for
 * sure that nothing happened. Before a non-idempotent call is made again after such a
 * failure, the thread is read for what it may have left.
 */
export function mayHaveHappened(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== "string" || !NOTHING_DONE.has(code);
}

/** Errors of `@slack/web-api` that say the call was refused or never sent. */
const NOTHING_DONE = new Set([
  "slack_webapi_platform_error",
  "slack_webapi_rate_limited_error",
  "slack_webapi_file_upload_invalid_args_error",
  "slack_webapi_file_upload_read_file_data_error",
]);
