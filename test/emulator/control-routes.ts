import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "./api-error.ts";
import type { EmulatorContext } from "./context.ts";
import { drained, readText, sendError, sendFailure, sendJson } from "./http-reply.ts";
import { applyKnobsPatch, knobsPatchSchema, resetKnobs } from "./knobs.ts";
import { resetStats } from "./stats.ts";

/** Returns the emulator to its initial state: no tasks, empty stats, default knobs. */
export function resetEmulatorState(ctx: EmulatorContext): void {
  ctx.tasks.clear();
  resetStats(ctx.stats);
  resetKnobs(ctx.knobs);
}

/**
 * Control routes for an emulator running in another process; they need no API key and are
 * left out of the request log:
 * - `GET /_emulator/stats` → the stats as JSON
 * - `POST /_emulator/knobs` → merges a JSON object into the knobs, answers the knobs
 * - `POST /_emulator/reset` → see `resetEmulatorState`
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

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "The body must be JSON.");
  }
}
