import { createWriteStream } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Dispatcher, request } from "undici";
import {
  NoteTakerLinkExpiredError,
  NoteTakerProtocolError,
  NoteTakerTransientError,
} from "./errors.ts";
import { parseRetryAfter } from "./retry-policy.ts";

/**
 * A plain GET of a result link (`dialog_url`, `docx_url`): redirects followed through the
 * given dispatcher, no API key, no other credential — the links are signed and may live on
 * another host.
 * @throws {NoteTakerLinkExpiredError} on 403/404/410.
 */
export async function getResultLink(
  dispatcher: Dispatcher,
  url: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
) {
  const target = new URL(url);
  if (target.protocol !== "https:" && target.protocol !== "http:") {
    throw new NoteTakerProtocolError("A result link is not an http(s) URL.");
  }
  const response = await request(target, {
    dispatcher,
    method: "GET",
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: signal ?? null,
  });
  const status = response.statusCode;
  if (status >= 200 && status <= 299) return response;
  await response.body.dump();
  if (status === 403 || status === 404 || status === 410) {
    throw new NoteTakerLinkExpiredError(`The result link answered ${status}: it has expired.`, {
      status,
    });
  }
  if (status === 408 || status === 429 || status >= 500) {
    throw new NoteTakerTransientError(`The result link answered ${status}.`, {
      status,
      ...retryAfter(response.headers["retry-after"]),
    });
  }
  throw new NoteTakerProtocolError(`The result link answered ${status}.`, { status });
}

function retryAfter(header: string | string[] | undefined): { retryAfterMs?: number } {
  const ms = parseRetryAfter(header);
  return ms === undefined ? {} : { retryAfterMs: ms };
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
      if (total > maxBytes)
        callback(new NoteTakerProtocolError(`The DOCX is larger than ${maxBytes} bytes.`));
      else callback(null, chunk);
    },
  });
  await pipeline(body, counter, createWriteStream(path));
  if (!head.equals(Buffer.from("PK\u0003\u0004", "latin1"))) {
    throw new NoteTakerProtocolError("The note's DOCX link did not return a DOCX file.");
  }
  return total;
}
