import { isTransientStatus } from "../util/backoff.ts";
import { optional } from "../util/optional.ts";

/**
 * One class per outcome: the job layer decides from the class, never a status code, what a
 * person is told and whether a retry can help.
 */

export type NoteTakerErrorCode =
  | "notetaker_input_invalid"
  | "notetaker_auth"
  | "notetaker_address"
  | "notetaker_refused"
  | "notetaker_task_not_found"
  | "notetaker_transient"
  | "notetaker_protocol"
  | "notetaker_link_expired"
  | "notetaker_link_refused"
  | "notetaker_too_large";

export abstract class NoteTakerError extends Error {
  abstract readonly code: NoteTakerErrorCode;
  readonly status: number | undefined;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = this.constructor.name;
    this.status = options.status;
  }
}

/** Rejected locally before any request: the input breaks the API's documented rules. */
export class NoteTakerInputError extends NoteTakerError {
  readonly code = "notetaker_input_invalid";
}

/** 401/403 from the API: the API key is missing or wrong — an admin must fix the configuration. */
export class NoteTakerAuthError extends NoteTakerError {
  readonly code = "notetaker_auth";
}

/** 404 to a submission: NOTE_TAKER_BASE_URL is wrong (most likely the host without its path). */
export class NoteTakerAddressError extends NoteTakerError {
  readonly code = "notetaker_address";
}

/** 400/413/415/422 (and other 4xx): the service refused the request; `message` is its reason. */
export class NoteTakerRefusedError extends NoteTakerError {
  readonly code = "notetaker_refused";
}

/** 404 on a poll: the service no longer knows the task. */
export class NoteTakerTaskNotFoundError extends NoteTakerError {
  readonly code = "notetaker_task_not_found";
}

/** 408, 429, 5xx, network errors and timeouts: worth trying again later. */
export class NoteTakerTransientError extends NoteTakerError {
  readonly code = "notetaker_transient";
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: { status?: number; cause?: unknown; retryAfterMs?: number } = {},
  ) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The service answered something that is not what the spec describes. */
export class NoteTakerProtocolError extends NoteTakerError {
  readonly code = "notetaker_protocol";
}

/** A result link (the DOCX) has expired or is gone: regenerate instead of failing. */
export class NoteTakerLinkExpiredError extends NoteTakerError {
  readonly code = "notetaker_link_expired";
}

/** A result link (or a redirect) to a non-https or non-public address: retrying cannot help. */
export class NoteTakerLinkRefusedError extends NoteTakerError {
  readonly code = "notetaker_link_refused";
}

/** A result file is larger than the client accepts; reading stopped at the cap. */
export class NoteTakerTooLargeError extends NoteTakerError {
  readonly code = "notetaker_too_large";
  readonly what: "dialog" | "docx";
  readonly maxBytes: number;

  constructor(what: "dialog" | "docx", maxBytes: number) {
    super(`The ${what} file is larger than ${maxBytes} bytes.`);
    this.what = what;
    this.maxBytes = maxBytes;
  }
}

/** The error body's message, wherever it is: the service does not document its shape. */
export function errorMessageOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const data = asRecord(b.data);
  const candidates = [
    asRecord(data?.error)?.message,
    asRecord(b.error)?.message,
    b.message,
    b.error,
  ];
  const found = candidates.find((c): c is string => typeof c === "string" && c.trim() !== "");
  return found?.trim();
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The error for a non-2xx answer (docs/note-service.md, "The gaps"); 404 to a poll: lost task. */
export function errorFromResponse(input: {
  status: number;
  body: unknown;
  statusText: string;
  retryAfterMs: number | undefined;
  isPoll: boolean;
}): NoteTakerError {
  const { status, isPoll } = input;
  const message = errorMessageOf(input.body) ?? (input.statusText || `HTTP ${status}`);
  if (status === 401 || status === 403) {
    return new NoteTakerAuthError(`The Note Service refused the API key (${status}): ${message}`, {
      status,
    });
  }
  if (status === 404 && isPoll) return new NoteTakerTaskNotFoundError(message, { status });
  if (status === 404) {
    return new NoteTakerAddressError(`No Note Service endpoint at this address (404): ${message}`, {
      status,
    });
  }
  if (isTransientStatus(status)) {
    return new NoteTakerTransientError(message, {
      status,
      ...optional("retryAfterMs", input.retryAfterMs),
    });
  }
  return new NoteTakerRefusedError(message, { status });
}

/** Whether trying the same request again can help. */
export function isRetryable(error: unknown): error is NoteTakerTransientError {
  return error instanceof NoteTakerTransientError;
}

/** A short label of how a request ended, for metrics. */
export function outcomeOf(error: unknown): string {
  if (error instanceof NoteTakerError) return error.code.replace(/^notetaker_/, "");
  return "network";
}
