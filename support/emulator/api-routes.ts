import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { BASE_PATH, type EmulatorContext, POLL_LOG_PER_TASK } from "./context.ts";
import { handleControlRequest } from "./control-routes.ts";
import { faultReply, takeFault } from "./faults.ts";
import { drained, sendError, sendFailure, sendJson, sleep } from "./http-reply.ts";
import { logRequest } from "./stats.ts";
import { submitAudio } from "./submit-audio.ts";
import { submitNote } from "./submit-note.ts";
import type { TaskKind } from "./tasks.ts";

const ENDPOINTS: Record<string, TaskKind> = {
  "/audio2dialog": "audio",
  "/dialog2meeting": "note",
};

/**
 * Serves the API origin: control routes first (no key), then injected faults, the API key
 * check and the four endpoints of docs/note-service.md.
 */
export async function handleApiRequest(
  ctx: EmulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { pathname } = new URL(req.url ?? "/", "http://emulator");
  if (pathname.startsWith("/_emulator/")) {
    await handleControlRequest(ctx, req, res, pathname);
    return;
  }
  logRequest(ctx.stats, "api", req);
  const method = req.method ?? "GET";
  const relative = pathname.startsWith(`${BASE_PATH}/`) ? pathname.slice(BASE_PATH.length) : null;

  const fault = takeFault(ctx.knobs, `${method} ${relative ?? pathname}`);
  if (fault !== undefined) {
    const { message, headers } = faultReply(fault);
    return answerAfterBody(ctx, req, () => sendError(res, fault.status, message, headers));
  }
  if (relative === null) {
    return answerAfterBody(ctx, req, () => sendError(res, 404, "No such endpoint."));
  }
  if (!hasValidKey(req, ctx.apiKey)) {
    return answerAfterBody(ctx, req, () => sendError(res, 401, "Invalid API key"));
  }

  const [, endpoint = "", id, ...extra] = relative.split("/");
  const kind = ENDPOINTS[`/${endpoint}`];
  if (kind === undefined || extra.length > 0 || id === "") {
    return answerAfterBody(ctx, req, () => sendError(res, 404, "No such endpoint."));
  }
  const wanted = id === undefined ? "POST" : "GET";
  if (method !== wanted) {
    return answerAfterBody(ctx, req, () =>
      sendError(res, 405, `Use ${wanted} on this endpoint.`, { allow: wanted }),
    );
  }

  try {
    if (id === undefined) {
      const taskId = kind === "audio" ? await submitAudio(ctx, req) : await submitNote(ctx, req);
      await sleep(ctx.knobs.latencyMs);
      sendJson(res, 202, { ok: true, data: { task_id: taskId } });
      return;
    }
    await pollTask(ctx, res, kind, safeDecode(id));
  } catch (error) {
    await sleep(ctx.knobs.latencyMs);
    sendFailure(res, error);
  }
}

/** `GET /audio2dialog/<id>` and `GET /dialog2meeting/<id>`: 200 with the task, or 404. */
async function pollTask(
  ctx: EmulatorContext,
  res: ServerResponse,
  kind: TaskKind,
  id: string,
): Promise<void> {
  ctx.stats.polls[kind] += 1;
  logPoll(ctx, id);
  const task = ctx.tasks.get(kind, id);
  if (task === undefined) {
    await sleep(ctx.knobs.latencyMs);
    sendError(res, 404, `Task ${id} was not found.`);
    return;
  }
  const data = await ctx.tasks.poll(task, Date.now());
  await sleep(ctx.knobs.latencyMs);
  sendJson(res, 200, { ok: true, data });
}

/** Notes the poll's task id and time in the poll log, when it is on. */
function logPoll(ctx: EmulatorContext, id: string): void {
  if (ctx.pollLog === undefined) return;
  const times = ctx.pollLog.get(id) ?? [];
  times.push(Date.now());
  if (times.length > POLL_LOG_PER_TASK) times.shift();
  ctx.pollLog.set(id, times);
}

/**
 * Reads and drops the request body before answering, so a client still uploading gets the
 * answer on a healthy connection.
 */
async function answerAfterBody(
  ctx: EmulatorContext,
  req: IncomingMessage,
  answer: () => void,
): Promise<void> {
  await drained(req);
  await sleep(ctx.knobs.latencyMs);
  answer();
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Compares digests so the check takes the same time whatever the key looks like. */
function hasValidKey(req: IncomingMessage, apiKey: string): boolean {
  const given = req.headers["x-api-key"];
  if (typeof given !== "string") return false;
  const digest = (text: string): Buffer => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(apiKey));
}
