import {
  NoteTakerAddressError,
  NoteTakerAuthError,
  NoteTakerInputError,
  NoteTakerLinkExpiredError,
  NoteTakerLinkRefusedError,
  NoteTakerProtocolError,
  NoteTakerRefusedError,
  NoteTakerTaskNotFoundError,
  NoteTakerTooLargeError,
  NoteTakerTransientError,
} from "../../notetaker/index.ts";
import { BACKOFFS, backoffDelayMs } from "../../util/backoff.ts";
import { optional } from "../../util/optional.ts";
import { isDiskFull } from "../files/disk-full.ts";
import type { Failure, Job } from "../model/job.ts";
import type { WaitReason } from "../model/job-parts.ts";
import { SlackPortError } from "../ports.ts";

/** A wait says why only when the status message can tell the person something useful. */
export type FailureDecision =
  | { kind: "retry_later"; delayMs: number; waiting?: WaitReason }
  | { kind: "fail"; failure: Failure; retryable: boolean };

/** Thrown by steps for failures already decided (no speech, a bad download…). */
export class JobStepError extends Error {
  readonly failure: Failure;
  readonly retryable: boolean;

  constructor(failure: Failure, retryable: boolean, options?: { cause?: unknown }) {
    super(failure.detail ?? failure.code, options);
    this.name = this.constructor.name;
    this.failure = failure;
    this.retryable = retryable;
  }
}

export interface FailurePolicyOptions {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  random?: () => number;
}

export const defaultFailurePolicy: FailurePolicyOptions = {
  maxAttempts: 8,
  baseDelayMs: BACKOFFS.jobStep.baseMs,
  maxDelayMs: BACKOFFS.jobStep.maxMs,
};

/**
 * Transient trouble is retried with growing waits (the clients already retried in-line) up to
 * `maxAttempts`; anything else fails the job with a reason and whether Retry can help.
 */
export function decideFailure(
  error: unknown,
  attempts: number,
  options: FailurePolicyOptions = defaultFailurePolicy,
): FailureDecision {
  if (error instanceof JobStepError) {
    return { kind: "fail", failure: error.failure, retryable: error.retryable };
  }
  if (error instanceof NoteTakerAuthError) return fail("auth", true);
  if (error instanceof NoteTakerAddressError) return fail("address", true);
  if (error instanceof NoteTakerRefusedError) return fail("refused", false, error.message);
  if (error instanceof NoteTakerInputError) return fail("invalid_input", false, error.message);
  if (error instanceof NoteTakerTaskNotFoundError) return fail("task_lost", true);
  if (error instanceof NoteTakerProtocolError) return fail("bad_response", true);
  if (error instanceof NoteTakerLinkExpiredError) return fail("docx_expired", true);
  // The same link would be refused again, and the same file would be as large again.
  if (error instanceof NoteTakerLinkRefusedError) return fail("link_refused", false);
  if (error instanceof NoteTakerTooLargeError) {
    const code = error.what === "dialog" ? "dialog_too_large" : "docx_too_large";
    return fail(code, false, String(Math.floor(error.maxBytes / (1024 * 1024))));
  }
  if (error instanceof SlackPortError && !error.transient) {
    return fail(error.failure ?? "slack_failed", true);
  }
  const { code, waiting } = transientCause(error);
  if (attempts + 1 >= options.maxAttempts) return fail(code, true);
  const serverWait =
    error instanceof NoteTakerTransientError || error instanceof SlackPortError
      ? error.retryAfterMs
      : undefined;
  const { baseDelayMs: baseMs, maxDelayMs: maxMs } = options;
  const backoff = { baseMs, maxMs, jitter: BACKOFFS.jobStep.jitter };
  const delayMs = Math.round(
    Math.max(backoffDelayMs(backoff, attempts, options.random), serverWait ?? 0),
  );
  return { kind: "retry_later", delayMs, ...optional("waiting", waiting) };
}

/** The install's tokens are gone: final for the job, and not even its status can be drawn. */
export function lostInstall(error: unknown): boolean {
  return error instanceof SlackPortError && error.failure === "install_unavailable";
}

export function endedByLostInstall(job: Job): boolean {
  return job.stage === "failed" && job.failure.code === "install_unavailable";
}

/**
 * A full disk waits wherever the write was: the job goes on by itself once an admin frees space.
 */
function transientCause(error: unknown): { code: Failure["code"]; waiting?: WaitReason } {
  if (isDiskFull(error)) return { code: "disk_full", waiting: "disk_full" };
  if (error instanceof NoteTakerTransientError) {
    return { code: "unavailable", waiting: "note_service" };
  }
  if (error instanceof SlackPortError) {
    const code = error.failure ?? "slack_unavailable";
    return error.waiting === undefined ? { code } : { code, waiting: error.waiting };
  }
  return { code: "internal" };
}

function fail(code: Failure["code"], retryable: boolean, detail?: string): FailureDecision {
  return { kind: "fail", failure: detail === undefined ? { code } : { code, detail }, retryable };
}
