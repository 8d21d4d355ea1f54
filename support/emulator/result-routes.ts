import type { IncomingMessage, ServerResponse } from "node:http";
import type { EmulatorContext } from "./context.ts";
import { faultReply, takeFault } from "./faults.ts";
import { drained, sendError } from "./http-reply.ts";
import { streamHugeDialog } from "./huge-dialog.ts";
import { logRequest } from "./stats.ts";
import { dialogPath, linkOrigin } from "./tasks.ts";

/** Signed dialog links are minted fresh on every redirect, so they can be short-lived. */
const DIALOG_LINK_TTL_MS = 15 * 60 * 1000;

const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/**
 * Serves the result origin, which stands for a file host apart from the API: it needs no key
 * (and logs every header, so tests can prove none was sent).
 * - `GET /r/dialog/<id>` → 302 to a freshly signed dialog file link
 * - `GET /files/dialog/<id>.json?expires&sig` → the dialog array (or `knobs.dialogBody`)
 * - `GET /files/docx/<id>.docx?expires&sig` → the DOCX
 * A bad signature answers 403, an expired link 410.
 */
export async function handleResultRequest(
  ctx: EmulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  logRequest(ctx.stats, "result", req);
  await drained(req);
  const url = new URL(req.url ?? "/", "http://emulator");
  const method = req.method ?? "GET";
  const fault = takeFault(ctx.knobs, `${method} ${url.pathname}`);
  if (fault !== undefined) {
    const { message, headers } = faultReply(fault);
    sendError(res, fault.status, message, headers);
    return;
  }
  if (method !== "GET") {
    sendError(res, 405, "Only GET is supported here.", { allow: "GET" });
    return;
  }

  const redirect = /^\/r\/dialog\/([^/]+)$/.exec(url.pathname);
  const dialogFile = /^\/files\/dialog\/([^/]+)\.json$/.exec(url.pathname);
  const docxFile = /^\/files\/docx\/([^/]+)\.docx$/.exec(url.pathname);
  if (redirect?.[1] !== undefined) {
    const task = ctx.tasks.get("audio", redirect[1]);
    if (task?.kind !== "audio" || task.dialog === undefined) {
      sendError(res, 404, "No such dialog.");
      return;
    }
    const signed = ctx.signer.signPath(dialogPath(task.id), Date.now() + DIALOG_LINK_TTL_MS);
    const location =
      ctx.knobs.dialogRedirectUrl ?? linkOrigin(ctx.resultOrigin, ctx.knobs) + signed;
    res.writeHead(302, { location, "content-length": "0" });
    res.end();
    return;
  }
  if (dialogFile?.[1] !== undefined) {
    const task = ctx.tasks.get("audio", dialogFile[1]);
    if (!checkLink(ctx, res, url, task?.kind === "audio" && task.dialog !== undefined)) return;
    const dialog = task?.kind === "audio" ? task.dialog : undefined;
    if (ctx.knobs.dialogBytes !== undefined) {
      await streamHugeDialog(res, ctx.knobs.dialogBytes);
      return;
    }
    sendFile(
      res,
      ctx.knobs.dialogBody ?? JSON.stringify(dialog),
      "application/json",
      "dialog.json",
    );
    return;
  }
  if (docxFile?.[1] !== undefined) {
    const task = ctx.tasks.get("note", docxFile[1]);
    const docx = task?.kind === "note" ? task.docx : undefined;
    if (!checkLink(ctx, res, url, docx !== undefined)) return;
    if (ctx.knobs.expireDocxLinks) {
      sendError(res, 410, "This link has expired.");
      return;
    }
    sendFile(res, docx?.bytes ?? Buffer.alloc(0), DOCX_TYPE, "meeting-notes.docx");
    return;
  }
  sendError(res, 404, "No such file.");
}

/** Answers 403, 410 or 404 and returns false unless the signed link is good and the file exists. */
function checkLink(ctx: EmulatorContext, res: ServerResponse, url: URL, exists: boolean): boolean {
  const verdict = ctx.signer.verify(url.pathname, url.searchParams, Date.now());
  if (verdict === "bad-signature") sendError(res, 403, "The link signature is not valid.");
  else if (verdict === "expired") sendError(res, 410, "This link has expired.");
  else if (!exists) sendError(res, 404, "No such file.");
  return verdict === "ok" && exists;
}

function sendFile(
  res: ServerResponse,
  body: string | Buffer,
  contentType: string,
  filename: string,
): void {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  res.writeHead(200, {
    "content-type": contentType,
    "content-length": String(bytes.length),
    "content-disposition": `attachment; filename="${filename}"`,
  });
  res.end(bytes);
}
