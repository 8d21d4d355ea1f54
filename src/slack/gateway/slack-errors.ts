import { type Failure, SlackPortError, type WaitReason } from "../../jobs/index.ts";
import { InstallUnavailable } from "../installs/token-source.ts";
import { type DownloadTrouble, SlackDownloadError } from "./download-slack-file.ts";

/**
 * "likely due to a transient issue on our end"
 * (https://docs.slack.dev/reference/methods/auth.test).
 */
export const TRANSIENT_PLATFORM_ERRORS: ReadonlySet<string> = new Set([
  "ratelimited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "timeout",
]);

/** The failure a download's trouble ends in, and why the job waits meanwhile. */
const DOWNLOAD_OUTCOMES: Record<DownloadTrouble, { failure: Failure["code"]; wait?: WaitReason }> =
  {
    unavailable: { failure: "download_unavailable", wait: "slack_files" },
    cut_off: { failure: "download_cut", wait: "slack_download_cut" },
    disk_full: { failure: "disk_full", wait: "disk_full" },
    vanished: { failure: "download_failed" },
    refused: { failure: "download_refused" },
    failed: { failure: "download_failed" },
  };

/** A Web API or download error as a {@link SlackPortError} that says whether a retry can help. */
export function toGatewayError(error: unknown, what: string): SlackPortError {
  if (error instanceof SlackPortError) return error;
  // No token until the app is installed again: final for the job.
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
    retryAfterMs: typeof retryAfter === "number" ? retryAfter * 1000 : undefined,
    cause: error,
  });
}

/**
 * Thrown as it is (a download), or the cause of the client's request error (its `fetch` asks for
 * the token).
 */
export function installUnavailableIn(error: unknown): InstallUnavailable | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof InstallUnavailable) return current;
    current = current.cause ?? (current as { original?: unknown }).original;
  }
  return undefined;
}

export function platformErrorOf(error: unknown): string | undefined {
  const platform = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  return typeof platform === "string" ? platform : undefined;
}

/** Only Slack's own refusal (`ok: false`) and its 429 say for sure that nothing happened. */
export function mayHaveHappened(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== "string" || !NOTHING_DONE.has(code);
}

const NOTHING_DONE = new Set([
  "slack_webapi_platform_error",
  "slack_webapi_rate_limited_error",
  "slack_webapi_file_upload_invalid_args_error",
  "slack_webapi_file_upload_read_file_data_error",
]);
