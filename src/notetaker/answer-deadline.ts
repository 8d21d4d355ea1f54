import { NoteTakerTransientError } from "./errors.ts";

/**
 * How long the service may take to answer a request once its whole body is sent: it
 * answers a submission at once (202), so a minute covers a slow one.
 */
export const ANSWER_AFTER_BODY_MS = 60_000;

/**
 * A deadline for the answer that starts when `body` has been read to its end (sent), as
 * undici's own header timeout does not: it runs from the request's start and is put back
 * only when a write meets back-pressure, so an upload's needs the upload's whole length (15
 * minutes) — and a service that took an upload and never answered held it, and its job,
 * that long. `signal` aborts at the deadline; `failure()` says why, for the retry policy.
 */
export function answerDeadline(
  body: NodeJS.ReadableStream | undefined,
  outer: AbortSignal | undefined,
  ms = ANSWER_AFTER_BODY_MS,
) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  body?.once("end", () => {
    timer = setTimeout(() => controller.abort(), ms);
  });
  const signals = [controller.signal, ...(outer === undefined ? [] : [outer])];
  return {
    signal: body === undefined ? (outer ?? null) : AbortSignal.any(signals),
    /** Whether the deadline, not the caller, ended the request. */
    passed: () => controller.signal.aborted && outer?.aborted !== true,
    failure: (cause: unknown) =>
      new NoteTakerTransientError(
        `The Note Service did not answer within ${ms / 1000} s of the request being sent.`,
        { cause },
      ),
    /** The answer's headers came: the deadline no longer applies. */
    clear: () => clearTimeout(timer),
  };
}
