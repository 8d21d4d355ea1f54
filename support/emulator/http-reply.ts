import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "./api-error.ts";
import { drainThen } from "./multipart.ts";

/** Writes `body` as JSON. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Writes the error envelope `{ok: false, error: {message}}`. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { ok: false, error: { message } }, headers);
}

/** Writes the error envelope for a refusal or, for anything else, a 500. */
export function sendFailure(res: ServerResponse, error: unknown): void {
  if (error instanceof ApiError) {
    sendError(res, error.status, error.message);
    return;
  }
  sendError(res, 500, "The emulator failed unexpectedly.");
}

/** Resolves once the request body has been read to the end (and thrown away). */
export function drained(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => drainThen(req, resolve));
}

/** Reads a small body as text; refuses past `maxBytes`. */
export async function readText(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    bytes += buffer.length;
    if (bytes > maxBytes) throw new ApiError(413, "The request body is too large.");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Waits `ms` milliseconds (no timer at all for 0, so tests stay fast). */
export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
