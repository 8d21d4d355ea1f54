import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { FakeSlackStore, FileSource } from "./fake-slack-store.ts";
import type { FakeDownload } from "./fake-slack-types.ts";
import { botCanSee } from "./file-object.ts";

/** Download knobs, read on every request. */
export interface DownloadKnobs {
  /** Wait before the first byte. */
  downloadDelayMs?: number | undefined;
  /** Throttle the body to about this rate. */
  downloadBytesPerSecond?: number | undefined;
  /** Cut the connection after this many body bytes (a reset mid-download). */
  truncateDownloadAt?: number | undefined;
  /**
   * Answer an authorised download with a 302:
   * - `"slack"`: to another file path of Slack's own (as Enterprise Grid answers
   *   files.slack.com with a 302 to files-origin.slack.com), which still needs the token;
   * - `"cdn"`: to the CDN origin (another port, so a host that is not Slack's), which serves
   *   without credentials — the bot must refuse to follow it, and the CDN then sees nothing.
   * See the comment on `openSlackFile` in src/slack/gateway/download-slack-file.ts.
   */
  redirectDownloads?: "slack" | "cdn" | undefined;
  /**
   * Answer an authorised download of a file that exists with `status` (and a small HTML
   * body, as Slack's file hosts do) `count` times, then serve it: a 503 while Slack's file
   * server is down, a 404 or 403 for a file the bot may not read.
   */
  failDownloads?: { status: number; count: number } | undefined;
}

/** What Slack answers an unauthenticated file URL with: a sign-in page, status 200. */
export const LOGIN_PAGE = `<!DOCTYPE html>
<html lang="en-US"><head><meta charset="utf-8"><title>Slack</title></head>
<body class="signin"><h1>Sign in to Fake Workspace</h1>
<form action="/signin" method="post"><input type="email" name="email">
<button type="submit">Sign in with Email</button></form></body></html>
`;

/**
 * Whether an `Authorization` header may read a workspace's files: `ok` for a live token of an
 * installation acting in it, `expired` for a rotating token past its expiry, `denied` for
 * anything else (no token, unknown, revoked, another workspace's).
 */
export type DownloadAccess = (
  authorization: string | undefined,
  teamId: string,
) => "ok" | "expired" | "denied";

const FILE_PATH = /^\/files-pri\/([^/]+)-([A-Z0-9]+)\/(?:download\/)?[^/]+$/;
const GRANTED_PATH = /^\/(?:cdn|files-origin)\/([a-f0-9]+)\//;

/** Where redirected downloads go, and the files each one-time path stands for. */
export interface Redirects {
  slackOrigin: string;
  cdnOrigin: string;
  grants: Map<string, string>;
}

/** Serves `url_private` / `url_private_download` of registered files. */
export async function serveFile(
  req: IncomingMessage,
  res: ServerResponse,
  store: FakeSlackStore,
  access: DownloadAccess,
  redirects: Redirects,
  knobs: DownloadKnobs,
): Promise<void> {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const match = FILE_PATH.exec(path);
  const fileId = match?.[2];
  const entry = fileId === undefined ? undefined : store.files.get(fileId);
  const record = (status: number, served: boolean): void => {
    store.downloads.push({
      origin: "slack",
      path,
      ...(fileId !== undefined ? { fileId } : {}),
      headers: req.headers,
      served,
      status,
      at: Date.now(),
    });
  };
  const hidden = fileId !== undefined && entry !== undefined && !botCanSee(store, fileId);
  const allowed = hidden ? "denied" : access(req.headers.authorization, store.workspace.teamId);
  if (allowed === "expired") {
    // An expired rotating token: refused outright, so the app refreshes and tries again.
    record(401, false);
    res.writeHead(401, { "content-type": "text/plain" }).end("token_expired");
    return;
  }
  if (allowed === "denied") {
    // Real Slack does not say 401: it serves its sign-in page, which a careless bot saves
    // as the "recording".
    record(200, false);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LOGIN_PAGE);
    return;
  }
  if (
    entry?.source === undefined ||
    fileId === undefined ||
    match?.[1] !== store.workspace.teamId
  ) {
    record(404, false);
    res.writeHead(404, { "content-type": "text/html; charset=utf-8" }).end("<h1>Not found</h1>");
    return;
  }
  const failing = knobs.failDownloads;
  if (failing !== undefined && failing.count > 0) {
    failing.count -= 1;
    record(failing.status, false);
    res.writeHead(failing.status, { "content-type": "text/html; charset=utf-8" });
    res.end(`<h1>${failing.status}</h1>`);
    return;
  }
  if (knobs.redirectDownloads !== undefined) {
    const grant = randomBytes(12).toString("hex");
    redirects.grants.set(grant, fileId);
    const target =
      knobs.redirectDownloads === "slack"
        ? `${redirects.slackOrigin}/files-origin`
        : `${redirects.cdnOrigin}/cdn`;
    record(302, false);
    res.writeHead(302, { location: `${target}/${grant}/${encodeURIComponent(entry.file.name)}` });
    res.end();
    return;
  }
  record(200, true);
  await streamSource(req, res, entry.source, entry.file.mimetype, knobs);
}

const PREVIEW_PATH = /^\/files-tmb\/([^/]+)-([A-Z0-9]+)-[a-f0-9]+\/[^/]+$/;

/**
 * Serves Slack's transcoded copy of audio or video (`files-tmb/<team>-<id>-<hash>/…`): what
 * `url_private` (and `aac`, `mp4`) point at for media, while `url_private_download` is the
 * original. Like Slack, only with the token; a 404 unless the file was given a preview.
 */
export async function servePreview(
  req: IncomingMessage,
  res: ServerResponse,
  store: FakeSlackStore,
  access: DownloadAccess,
  knobs: DownloadKnobs,
): Promise<void> {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const match = PREVIEW_PATH.exec(path);
  const fileId = match?.[2];
  const entry = fileId === undefined ? undefined : store.files.get(fileId);
  const authorised = access(req.headers.authorization, store.workspace.teamId) === "ok";
  const preview = authorised && match?.[1] === store.workspace.teamId ? entry?.preview : undefined;
  store.downloads.push({
    origin: "slack",
    path,
    ...(fileId !== undefined ? { fileId } : {}),
    headers: req.headers,
    served: preview !== undefined,
    status: preview !== undefined ? 200 : authorised ? 404 : 200,
    at: Date.now(),
  });
  if (!authorised) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LOGIN_PAGE);
    return;
  }
  if (preview === undefined) {
    res.writeHead(404, { "content-type": "text/html; charset=utf-8" }).end("<h1>Not found</h1>");
    return;
  }
  await streamSource(req, res, preview, "video/mp4", knobs);
}

/**
 * Serves a file a redirect granted: on the CDN origin without any credentials, on Slack's
 * own origin (`/files-origin/…`) only with the bot token, like the first hop.
 */
export async function serveGranted(
  req: IncomingMessage,
  res: ServerResponse,
  store: FakeSlackStore,
  grants: Map<string, string>,
  knobs: DownloadKnobs,
  origin: "slack" | "cdn",
  access?: DownloadAccess,
): Promise<void> {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (access !== undefined && access(req.headers.authorization, store.workspace.teamId) !== "ok") {
    store.downloads.push({
      origin,
      path,
      headers: req.headers,
      served: false,
      status: 200,
      at: Date.now(),
    });
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LOGIN_PAGE);
    return;
  }
  const fileId = grants.get(GRANTED_PATH.exec(path)?.[1] ?? "");
  const entry = fileId === undefined ? undefined : store.files.get(fileId);
  const download: FakeDownload = {
    origin,
    path,
    ...(fileId !== undefined ? { fileId } : {}),
    headers: req.headers,
    served: entry?.source !== undefined,
    status: entry?.source !== undefined ? 200 : 404,
    at: Date.now(),
  };
  store.downloads.push(download);
  if (entry?.source === undefined) {
    res.writeHead(404).end();
    return;
  }
  await streamSource(req, res, entry.source, entry.file.mimetype, knobs);
}

async function streamSource(
  req: IncomingMessage,
  res: ServerResponse,
  source: FileSource,
  mimetype: string,
  knobs: DownloadKnobs,
): Promise<void> {
  const size = "bytes" in source ? source.bytes.length : (await stat(source.path)).size;
  const signal = abortOnClose(res);
  if (knobs.downloadDelayMs)
    await sleep(knobs.downloadDelayMs, undefined, { signal }).catch(() => {});
  if (signal.aborted) return;
  res.writeHead(200, {
    "content-type": mimetype || "application/octet-stream",
    "content-length": String(size),
  });
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  const body =
    "bytes" in source
      ? Readable.from([source.bytes])
      : createReadStream(source.path, { highWaterMark: 1024 * 1024 });
  let written = 0;
  try {
    for await (const part of shape(body, knobs, signal)) {
      written += part.length;
      if (!res.write(part)) await once(res, "drain", { signal });
    }
  } catch {
    // The client hung up: nothing left to answer.
    body.destroy();
    res.destroy();
    return;
  }
  // Short of the declared length means truncation: close the connection after what was
  // written, so the client sees a premature end rather than a hang.
  if (written < size) res.socket?.end();
  else res.end();
}

/** Throttles the body, and stops it at `truncateDownloadAt`. */
async function* shape(
  source: AsyncIterable<Buffer>,
  knobs: DownloadKnobs,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  const started = Date.now();
  let sent = 0;
  for await (const chunk of source) {
    const cut = knobs.truncateDownloadAt;
    const piece = cut === undefined ? chunk : chunk.subarray(0, Math.max(0, cut - sent));
    const rate = knobs.downloadBytesPerSecond;
    // Throttled bodies go out in small slices so the rate holds within a big chunk too.
    const slice = rate ? Math.max(1, Math.ceil(rate / 20)) : Math.max(1, piece.length);
    for (let offset = 0; offset < piece.length; offset += slice) {
      const part = piece.subarray(offset, offset + slice);
      if (rate) {
        const due = started + ((sent + part.length) / rate) * 1000;
        if (due > Date.now()) await sleep(due - Date.now(), undefined, { signal });
      }
      sent += part.length;
      yield part;
    }
    if (cut !== undefined && sent >= cut) return;
  }
}

/** Aborts when the client goes away before the response is complete. */
function abortOnClose(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
