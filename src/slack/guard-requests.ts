import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { type BodyRead, readBody } from "../http/read-body.ts";
import type { Logger } from "../logger.ts";
import {
  isFresh,
  isSignedBody,
  MAX_CLOCK_SKEW_MS,
  readSignatureHeaders,
  type SignatureHeaders,
} from "./slack-signature.ts";

/** Slack's requests are a few kB; a modal's state is the largest, far below this. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Bodies being read at once, in bytes: past this a request is turned away (503). */
const MAX_BUFFERED_BYTES = 32 * MAX_BODY_BYTES;

/**
 * A replica whose clock runs behind ours still takes a signature this much longer; the
 * replay memory outlives that.
 */
const REPLICA_CLOCK_MARGIN_MS = 60_000;

export interface GuardOptions {
  signingSecret: string;
  /** Remembers a signature for `ttlMs`: false when it is remembered already (a replay). */
  claimSignature(signature: string, ttlMs: number): Promise<boolean>;
  logger: Logger;
  now?: () => number;
  maxBodyBytes?: number;
  maxBufferedBytes?: number;
}

type Verdict = { raw: Buffer } | { status: number; reason: string } | { gone: true };

/** What a body that was not read (or not wholly) comes to. */
const UNREAD: Record<"too_large" | "busy" | "aborted", Verdict> = {
  too_large: { status: 413, reason: "body too large" },
  busy: { status: 503, reason: "too many bodies being read" },
  aborted: { gone: true },
};

/**
 * Guards Bolt's request listener: a request reaches Bolt only when Slack signed it, recently,
 * once. In order, each step answering at once when it fails:
 * 1. both signing headers present and well-formed, else 401 — before any body is read;
 * 2. the timestamp within 5 minutes of now, past or future, else 401;
 * 3. `Content-Length` within 1 MiB, else 413; a body sent without one is counted as it comes
 *    and cut at 1 MiB with 413; bodies being read at once share a budget, past it 503;
 * 4. the HMAC of the raw body matches, else 401;
 * 5. the signature was not accepted before (shared through the store), else 401;
 * 6. the body, as Bolt will parse it, is an object, else 400 (Bolt 5.1 reads `ssl_check` off
 *    a `null` outside any try: such a request would never be answered).
 * Refusals close the connection, so a body that was not read is not drained either. The body
 * goes to Bolt as `rawBody`, which Bolt uses instead of reading the request again. This is
 * the one signature check: Bolt's own is turned off (`createBoltApp`), since the guard must
 * run before the body is read and must remember signatures across replicas, which Bolt's
 * does neither.
 */
export function guardRequests(listener: RequestListener, options: GuardOptions): RequestListener {
  const now = options.now ?? Date.now;
  const read = bodyReader(
    options.maxBodyBytes ?? MAX_BODY_BYTES,
    options.maxBufferedBytes ?? MAX_BUFFERED_BYTES,
  );
  const admit = async (req: IncomingMessage): Promise<Verdict> => {
    const headers = readSignatureHeaders(req.headers);
    if (headers === undefined) return { status: 401, reason: "signature headers missing" };
    if (!isFresh(headers, now())) return { status: 401, reason: "timestamp too far from now" };
    const body = await read(req);
    if ("refused" in body) return UNREAD[body.refused];
    if (!isSignedBody(headers, body.body, options.signingSecret)) {
      return { status: 401, reason: "signature mismatch" };
    }
    if (!(await options.claimSignature(headers.signature, replayWindowMs(headers, now())))) {
      return { status: 401, reason: "signature already used (replay)" };
    }
    if (isNotAnObject(req, body.body)) return { status: 400, reason: "payload is not an object" };
    return { raw: body.body };
  };
  return (req, res) => {
    admit(req).then(
      (verdict) => {
        if ("raw" in verdict) {
          (req as IncomingMessage & { rawBody?: Buffer }).rawBody = verdict.raw;
          listener(req, res);
        } else if ("status" in verdict) {
          const { status, reason } = verdict;
          options.logger.info({ status, reason }, "Slack request refused");
          refuse(res, status);
        }
      },
      (error: unknown) => {
        options.logger.error({ err: error }, "a Slack request could not be checked");
        refuse(res, 500);
      },
    );
  };
}

/**
 * Reads bodies of at most `maxBody` bytes, while all those being read at once stay within
 * `maxBuffered`: a body reserves its `Content-Length` (or `maxBody` when sent chunked) until
 * it is read, so slow senders cannot pile up memory.
 */
function bodyReader(maxBody: number, maxBuffered: number) {
  let left = maxBuffered;
  return async (req: IncomingMessage): Promise<BodyRead | { refused: "busy" }> => {
    const declared = declaredLength(req);
    if (declared !== undefined && declared > maxBody) return { refused: "too_large" };
    const reserved = declared ?? maxBody;
    if (reserved > left) return { refused: "busy" };
    left -= reserved;
    try {
      return await readBody(req, maxBody);
    } finally {
      left += reserved;
    }
  };
}

/**
 * The body's `Content-Length`; undefined when it comes chunked, its size unknown until read.
 * (Node has already refused a request with both, or with a malformed length.)
 */
function declaredLength(req: IncomingMessage): number | undefined {
  if (req.headers["transfer-encoding"] !== undefined) return undefined;
  return Number(req.headers["content-length"] ?? 0);
}

/** How long a signature must be remembered: until its timestamp is stale on every replica. */
function replayWindowMs(headers: SignatureHeaders, nowMs: number): number {
  return headers.timestampMs + MAX_CLOCK_SKEW_MS + REPLICA_CLOCK_MARGIN_MS - nowMs;
}

function refuse(res: ServerResponse, status: number): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { connection: "close", "content-length": 0 });
  res.end();
}

/** Whether the body, as Bolt would parse it, is not an object (`null`, a number…). */
function isNotAnObject(req: IncomingMessage, raw: Buffer): boolean {
  const type = String(req.headers["content-type"] ?? "");
  let text = raw.toString("utf8");
  if (type.includes("application/x-www-form-urlencoded")) {
    const payload = new URLSearchParams(text).get("payload");
    if (payload === null) return false;
    text = payload;
  } else if (!type.includes("application/json")) {
    return false;
  }
  // An object or an array is what Bolt reads safely: no need to parse it twice.
  const first = text.trimStart()[0];
  if (first === "{" || first === "[") return false;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed !== "object" || parsed === null;
  } catch {
    return false; // Bolt answers malformed JSON itself
  }
}
