import { createHmac, timingSafeEqual } from "node:crypto";
import type {
  IncomingHttpHeaders,
  IncomingMessage,
  RequestListener,
  ServerResponse,
} from "node:http";
import type { Logger } from "pino";
import { type BodyRead, readBody } from "../../http/read-body.ts";
import type { Store } from "../../store/index.ts";
import { BriefClaims } from "../../store/local-queue.ts";

// Slack's request signing: https://api.slack.com/authentication/verifying-requests-from-slack

/** Slack's requests are a few kB; a modal's state is the largest, far below this. */
export const MAX_BODY_BYTES = 1024 * 1024;

const MAX_BUFFERED_BYTES = 32 * MAX_BODY_BYTES;

/** A replica whose clock runs behind still takes a signature this much longer. */
const REPLICA_CLOCK_MARGIN_MS = 60_000;

export interface GuardOptions {
  signingSecret: string;
  /** False when the signature is remembered already (a replay). */
  claimSignature(signature: string, ttlMs: number): Promise<boolean>;
  logger: Logger;
  now?: () => number;
  maxBodyBytes?: number;
  maxBufferedBytes?: number;
}

type Verdict = { raw: Buffer } | { status: number; reason: string } | { gone: true };

const UNREAD: Record<"too_large" | "busy" | "aborted", Verdict> = {
  too_large: { status: 413, reason: "body too large" },
  busy: { status: 503, reason: "too many bodies being read" },
  aborted: { gone: true },
};

/**
 * The one signature check (Bolt's is off): headers and size are refused before the body is
 * read, replays across replicas through the store, and a non-object body with 400 (Bolt 5.1
 * reads `ssl_check` off a `null` outside any try, never answering). Refusals close the connection.
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
    if (Math.abs(now() - headers.timestampMs) > MAX_CLOCK_SKEW_MS) {
      return { status: 401, reason: "timestamp too far from now" };
    }
    const body = await read(req);
    if ("refused" in body) return UNREAD[body.refused];
    if (!isSignedBody(headers, body.body, options.signingSecret)) {
      return { status: 401, reason: "signature mismatch" };
    }
    // Remembered until the timestamp is stale on every replica.
    const ttlMs = headers.timestampMs + MAX_CLOCK_SKEW_MS + REPLICA_CLOCK_MARGIN_MS - now();
    if (!(await options.claimSignature(headers.signature, ttlMs))) {
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
 * Bodies being read at once reserve their length within `maxBuffered`: slow senders cannot pile up
 * memory.
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

/** Undefined when chunked (Node has already refused a request with both, or a malformed length). */
function declaredLength(req: IncomingMessage): number | undefined {
  if (req.headers["transfer-encoding"] !== undefined) return undefined;
  return Number(req.headers["content-length"] ?? 0);
}

function refuse(res: ServerResponse, status: number): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { connection: "close", "content-length": 0 });
  res.end();
}

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
  const first = text.trimStart()[0];
  if (first === "{" || first === "[") return false;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed !== "object" || parsed === null;
  } catch {
    return false; // Bolt answers malformed JSON itself
  }
}

/**
 * Request signatures remembered in the store (every replica refuses a replay) and here: while
 * the store fails the request still reaches its listener rather than a 500 that Slack retries
 * and counts against the app (https://docs.slack.dev/apis/events-api/, "Retries").
 */
export function claimSignatures(store: Store, logger: Logger) {
  const here = new BriefClaims();
  return async (signature: string, ttlMs: number): Promise<boolean> => {
    if (!here.claim(signature, ttlMs)) return false;
    return store.claimBriefly(`slack-signature:${signature}`, ttlMs).catch((error: unknown) => {
      logger.warn({ err: error }, "store failed: a request signature is remembered here only");
      return true;
    });
  };
}

/** How far a request's timestamp may be from our clock, either way (Slack's own figure). */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

interface SignatureHeaders {
  signature: string;
  /** The header exactly as sent: it is part of what was signed. */
  timestamp: string;
  timestampMs: number;
}

const SIGNATURE = /^v0=([0-9a-f]{64})$/i;
const TIMESTAMP = /^[0-9]{1,12}$/;

function readSignatureHeaders(headers: IncomingHttpHeaders): SignatureHeaders | undefined {
  const signature = headers["x-slack-signature"];
  const timestamp = headers["x-slack-request-timestamp"];
  // Node joins a repeated custom header with ", ", which neither pattern accepts.
  if (typeof signature !== "string" || typeof timestamp !== "string") return undefined;
  const hex = SIGNATURE.exec(signature)?.[1];
  if (hex === undefined || !TIMESTAMP.test(timestamp)) return undefined;
  return { signature: hex.toLowerCase(), timestamp, timestampMs: Number(timestamp) * 1000 };
}

function isSignedBody(headers: SignatureHeaders, body: Buffer, signingSecret: string): boolean {
  const expected = createHmac("sha256", signingSecret)
    .update(`v0:${headers.timestamp}:`)
    .update(body)
    .digest();
  return timingSafeEqual(expected, Buffer.from(headers.signature, "hex"));
}
