import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "./api-error.ts";
import type { EmulatorContext } from "./context.ts";
import { drained, readText, sendError, sendFailure, sendJson } from "./http-reply.ts";
import { applyKnobsPatch, knobsPatchSchema, resetKnobs } from "./knobs.ts";
import { resetStats } from "./stats.ts";

/** Returns the emulator to its initial state: no tasks, empty stats, default knobs. */
export function resetEmulatorState(ctx: EmulatorContext): void {
  ctx.tasks.clear();
  ctx.pollLog?.clear();
  resetStats(ctx.stats);
  resetKnobs(ctx.knobs);
}

/**
 * Control routes for an emulator running in another process; they need no API key and are
 * left out of the request log:
 * - `GET /_emulator/stats` → the stats as JSON
 * - `POST /_emulator/knobs` → merges a JSON object into the knobs, answers the knobs
 * - `POST /_emulator/reset` → see `resetEmulatorState`
 * - `GET /_emulator/polls?since=MS` → `{ polls: { taskId: [epoch ms, …] } }`, the polls at
 *   or after `since` (default 0), when the poll log is on (409 otherwise)
 */
export async function handleControlRequest(
  ctx: EmulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  const route = `${req.method ?? "GET"} ${pathname}`;
  try {
    switch (route) {
      case "GET /_emulator/stats":
        await drained(req);
        sendJson(res, 200, ctx.stats);
        return;
      case "POST /_emulator/knobs": {
        const patch = knobsPatchSchema.safeParse(parseBody(await readText(req, 1024 * 1024)));
        if (!patch.success) {
          throw new ApiError(400, `The knobs are invalid: ${patch.error.message}`);
        }
        applyKnobsPatch(ctx.knobs, patch.data);
        sendJson(res, 200, ctx.knobs);
        return;
      }
      case "GET /_emulator/polls": {
        await drained(req);
        if (ctx.pollLog === undefined) {
          throw new ApiError(409, "The poll log is off: start with pollLog (EMULATOR_POLL_LOG=1).");
        }
        const since = Number(new URL(req.url ?? "/", "http://emulator").searchParams.get("since"));
        sendJson(res, 200, { polls: pollsSince(ctx.pollLog, Number.isFinite(since) ? since : 0) });
        return;
      }
      case "POST /_emulator/reset":
        await drained(req);
        resetEmulatorState(ctx);
        sendJson(res, 200, { ok: true });
        return;
      default:
        await drained(req);
        sendError(res, 404, "No such control route.");
    }
  } catch (error) {
    sendFailure(res, error);
  }
}

function pollsSince(log: Map<string, number[]>, since: number): Record<string, number[]> {
  const polls: Record<string, number[]> = {};
  for (const [id, times] of log) {
    const recent = times.filter((at) => at >= since);
    if (recent.length > 0) polls[id] = recent;
  }
  return polls;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "The body must be JSON.");
  }
}
