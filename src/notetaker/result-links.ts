import { createWriteStream } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Dispatcher, request } from "undici";
import { isTransientStatus } from "../util/backoff.ts";
import { optional } from "../util/optional.ts";
import { readTextCapped } from "./api-call.ts";
import {
  NoteTakerLinkExpiredError,
  NoteTakerProtocolError,
  NoteTakerTooLargeError,
  NoteTakerTransientError,
} from "./errors.ts";
import type { ResultLinkGuard } from "./result-link-guard.ts";
import { parseRetryAfter } from "./retry-policy.ts";

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * A plain GET of a result link with no credential (the links are signed and may live on
 * another host); each of at most five redirects is checked by the guard as the first.
 */
export async function getResultLink(
  guard: ResultLinkGuard,
  url: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
) {
  let target = parseLink(url);
  for (let hop = 0; ; hop++) {
    guard.check(target);
    const response = await request(target, {
      dispatcher: guard.dispatcher,
      method: "GET",
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: signal ?? null,
    });
    const status = response.statusCode;
    const location = response.headers.location;
    if (REDIRECT_STATUSES.has(status) && typeof location === "string") {
      await response.body.dump();
      if (hop >= MAX_REDIRECTS) {
        throw new NoteTakerProtocolError(
          `A result link redirected more than ${MAX_REDIRECTS} times.`,
        );
      }
      target = parseLink(location, target);
      continue;
    }
    if (status >= 200 && status <= 299) return response;
    await response.body.dump();
    throw errorOfStatus(status, response.headers["retry-after"]);
  }
}

function parseLink(url: string, base?: URL): URL {
  if (!URL.canParse(url, base?.href))
    throw new NoteTakerProtocolError("A result link is not a URL.");
  return new URL(url, base);
}

function errorOfStatus(status: number, retryAfterHeader: string | string[] | undefined) {
  if (status === 403 || status === 404 || status === 410) {
    return new NoteTakerLinkExpiredError(`The result link answered ${status}: it has expired.`, {
      status,
    });
  }
  if (isTransientStatus(status)) {
    return new NoteTakerTransientError(`The result link answered ${status}.`, {
      status,
      ...optional("retryAfterMs", parseRetryAfter(retryAfterHeader)),
    });
  }
  return new NoteTakerProtocolError(`The result link answered ${status}.`, { status });
}

/** Refuses a body whose declared length is over the cap before reading any of it. */
export async function checkDeclaredLength(
  response: Dispatcher.ResponseData,
  tooLarge: NoteTakerTooLargeError,
): Promise<void> {
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > tooLarge.maxBytes) {
    // dump() closes at once a body declared over its 128 KiB limit, without an error event.
    await response.body.dump();
    throw tooLarge;
  }
}

/** Streams a body to disk with a size cap, then checks it looks like a DOCX (a zip file). */
export async function writeDocxCapped(
  body: AsyncIterable<Uint8Array>,
  path: string,
  maxBytes: number,
) {
  let total = 0;
  let head = Buffer.alloc(0);
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.byteLength;
      if (head.length < 4) head = Buffer.concat([head, chunk.subarray(0, 4 - head.length)]);
      if (total > maxBytes) callback(new NoteTakerTooLargeError("docx", maxBytes));
      else callback(null, chunk);
    },
  });
  await pipeline(body, counter, createWriteStream(path, { mode: 0o600 }));
  if (!head.equals(Buffer.from("PK\u0003\u0004", "latin1"))) {
    throw new NoteTakerProtocolError("The note's DOCX link did not return a DOCX file.");
  }
  return total;
}

export interface LinkReadOptions {
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal | undefined;
}

/** The dialog file behind `dialog_url`, as text, within `maxBytes`. */
export async function readDialogLink(
  guard: ResultLinkGuard,
  url: string,
  options: LinkReadOptions,
): Promise<string> {
  const response = await getResultLink(guard, url, options.timeoutMs, options.signal);
  const tooLarge = () => new NoteTakerTooLargeError("dialog", options.maxBytes);
  await checkDeclaredLength(response, tooLarge());
  return readTextCapped(response.body, options.maxBytes, tooLarge);
}

/** The note's DOCX behind `docx_url`, streamed to `path` with the same caps; its size. */
export async function saveDocxLink(
  guard: ResultLinkGuard,
  url: string,
  path: string,
  options: LinkReadOptions,
): Promise<number> {
  const response = await getResultLink(guard, url, options.timeoutMs, options.signal);
  await checkDeclaredLength(response, new NoteTakerTooLargeError("docx", options.maxBytes));
  return writeDocxCapped(response.body, path, options.maxBytes);
}
