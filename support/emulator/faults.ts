import type { Fault, Knobs } from "./knobs.ts";

const DEFAULT_MESSAGES: Record<number, string> = {
  429: "Too many requests. Try again later.",
  500: "The server hit an internal error.",
  502: "The upstream service answered badly.",
  503: "The service is temporarily unavailable.",
  504: "The upstream service timed out.",
};

/**
 * Finds the first fault matching `request` (`"METHOD /path"`, path relative to the API base
 * for the API origin), uses one of its counts, and drops it once used up. A fault key matches
 * its own path and every path below it, so `GET /audio2dialog` covers every poll.
 */
export function takeFault(knobs: Knobs, request: string): Fault | undefined {
  const index = knobs.faults.findIndex(
    (fault) =>
      fault.count > 0 &&
      (fault.match === "*" || request === fault.match || request.startsWith(`${fault.match}/`)),
  );
  const fault = knobs.faults[index];
  if (fault === undefined) return undefined;
  fault.count -= 1;
  if (fault.count <= 0) knobs.faults.splice(index, 1);
  return fault;
}

/** The error sentence and headers of a fault answer. */
export function faultReply(fault: Fault): { message: string; headers: Record<string, string> } {
  const message =
    fault.message ?? DEFAULT_MESSAGES[fault.status] ?? `Injected failure (HTTP ${fault.status}).`;
  const headers: Record<string, string> = {};
  if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
  return { message, headers };
}
