import { NoteTakerTransientError } from "./errors.ts";

/** The service answers a submission at once (202): a minute covers a slow one. */
export const ANSWER_AFTER_BODY_MS = 60_000;

/**
 * A deadline for the answer that starts once `body` is sent: undici's header timeout runs from
 * the request's start, so an upload's would need the upload's whole length.
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
