import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

// Slack's request signing: https://api.slack.com/authentication/verifying-requests-from-slack

/** How far a request's timestamp may be from our clock, either way (Slack's own figure). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

export interface SignatureHeaders {
  signature: string;
  /** The header exactly as sent: it is part of what was signed. */
  timestamp: string;
  timestampMs: number;
}

const SIGNATURE = /^v0=([0-9a-f]{64})$/i;
const TIMESTAMP = /^[0-9]{1,12}$/;

export function readSignatureHeaders(headers: IncomingHttpHeaders): SignatureHeaders | undefined {
  const signature = headers["x-slack-signature"];
  const timestamp = headers["x-slack-request-timestamp"];
  // Node joins a repeated custom header with ", ", which neither pattern accepts.
  if (typeof signature !== "string" || typeof timestamp !== "string") return undefined;
  const hex = SIGNATURE.exec(signature)?.[1];
  if (hex === undefined || !TIMESTAMP.test(timestamp)) return undefined;
  return { signature: hex.toLowerCase(), timestamp, timestampMs: Number(timestamp) * 1000 };
}

export function isFresh(headers: SignatureHeaders, nowMs: number): boolean {
  return Math.abs(nowMs - headers.timestampMs) <= MAX_CLOCK_SKEW_MS;
}

export function isSignedBody(
  headers: SignatureHeaders,
  body: Buffer,
  signingSecret: string,
): boolean {
  const expected = createHmac("sha256", signingSecret)
    .update(`v0:${headers.timestamp}:`)
    .update(body)
    .digest();
  return timingSafeEqual(expected, Buffer.from(headers.signature, "hex"));
}
