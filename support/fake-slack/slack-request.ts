import { createHmac, randomBytes } from "node:crypto";
import type { ConnectHost } from "./fake-slack-types.ts";
import { type CommandInput, commandFields, eventCallback } from "./slack-payloads.ts";
import { afterDelivery, beforeDelivery } from "./violations.ts";

export {
  appHomeOpenedEvent,
  type BlockActionInput,
  blockActionPayload,
  type CommandInput,
  commandFields,
  eventCallback,
  fileSharedEvent,
  fileShareMessageEvent,
  type MessageActionInput,
  messageActionPayload,
  messageEvent,
  newTriggerId,
  nowTs,
  type ViewSubmissionInput,
  viewSubmissionPayload,
} from "./slack-payloads.ts";

/** The app's answer to a request sent as Slack. */
export interface SlackAppResponse {
  status: number;
  headers: Headers;
  /** The raw body (Bolt acks with an empty one). */
  body: string;
  /** The body parsed as JSON when it is JSON (e.g. `{response_action: "errors", …}`). */
  json: unknown;
}

/** Knobs for negative tests of signature checking. */
export interface SendOptions {
  /** Seconds since the epoch for `x-slack-request-timestamp`; default now. */
  timestamp?: number;
  /** Replaces the computed `x-slack-signature`. */
  signature?: string;
  /** Extra headers (after the Slack ones). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** `x-slack-signature: v0=<hex hmac_sha256(secret, "v0:<ts>:<body>")>`, Slack's scheme. */
export function signSlackRequest(
  signingSecret: string,
  rawBody: string,
  timestamp: number = nowSeconds(),
): { "x-slack-signature": string; "x-slack-request-timestamp": string } {
  const hmac = createHmac("sha256", signingSecret).update(`v0:${timestamp}:${rawBody}`);
  return {
    "x-slack-signature": `v0=${hmac.digest("hex")}`,
    "x-slack-request-timestamp": String(timestamp),
  };
}

/** POSTs `rawBody` to the app exactly as given, signed as Slack signs it. */
export async function sendSigned(
  appUrl: string,
  signingSecret: string,
  rawBody: string,
  contentType: string,
  options: SendOptions = {},
): Promise<SlackAppResponse> {
  const signed = signSlackRequest(signingSecret, rawBody, options.timestamp);
  const response = await fetch(appUrl, {
    method: "POST",
    headers: {
      "content-type": contentType,
      "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
      accept: "application/json,*/*",
      ...signed,
      ...(options.signature !== undefined ? { "x-slack-signature": options.signature } : {}),
      ...options.headers,
    },
    body: rawBody,
    redirect: "manual",
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  const body = await response.text();
  let json: unknown;
  try {
    json = body === "" ? undefined : JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, body, json };
}

/** Envelope fields of an Events API delivery. */
export interface SendEventOptions extends SendOptions {
  teamId: string;
  /** Default a fresh `Ev…`; reuse one with `retryNum` to model Slack's redelivery. */
  eventId?: string;
  /**
   * Sets `x-slack-retry-num` (and `x-slack-retry-reason`), as Slack does on a retry, and —
   * unless `timestamp` is given — signs it `retryNum` seconds later than now: Slack signs
   * each retry afresh, and the app refuses a signature it has already taken (a replay).
   */
  retryNum?: number;
  /** Default `http_timeout`. */
  retryReason?: string;
  botUserId?: string;
  apiAppId?: string;
  /** The workspace's Enterprise Grid organisation (`enterprise_id`), if any. */
  enterpriseId?: string | undefined;
  /** Delivered to an org-wide install. */
  isEnterpriseInstall?: boolean | undefined;
  /** From a Slack Connect channel this workspace hosts (the envelope's `team_id`). */
  host?: ConnectHost | undefined;
  /** About the organisation, not one workspace: `team_id` null (`eventCallback`). */
  orgLevel?: boolean | undefined;
}

/** An Events API delivery: the answer plus the `event_id` it carried and what was sent. */
export interface SentEvent extends SlackAppResponse {
  eventId: string;
  /** The request body exactly as sent, for {@link redeliverEvent}. */
  rawBody: string;
  /** The `x-slack-request-timestamp` it was signed with. */
  timestamp: number;
}

/**
 * Delivers `event` in an `event_callback` envelope (JSON), as the Events API does, with
 * `x-slack-retry-num` when `retryNum` is given.
 */
export async function sendEvent(
  appUrl: string,
  signingSecret: string,
  event: Record<string, unknown>,
  options: SendEventOptions,
): Promise<SentEvent> {
  const eventId = options.eventId ?? `Ev0${randomBytes(5).toString("hex").toUpperCase()}`;
  const envelope = eventCallback(event, { ...options, eventId });
  const retry: Record<string, string> =
    options.retryNum === undefined
      ? {}
      : {
          "x-slack-retry-num": String(options.retryNum),
          "x-slack-retry-reason": options.retryReason ?? "http_timeout",
        };
  const rawBody = JSON.stringify(envelope);
  const timestamp = options.timestamp ?? nowSeconds() + (options.retryNum ?? 0);
  const response = await sendSigned(appUrl, signingSecret, rawBody, "application/json", {
    ...options,
    timestamp,
    headers: { ...retry, ...options.headers },
  });
  return { ...response, eventId, rawBody, timestamp };
}

/**
 * POSTs a whole Events API envelope (a published payload, with its own `event_id`) as
 * JSON, signed as Slack signs it.
 */
export function sendEnvelope(
  appUrl: string,
  signingSecret: string,
  envelope: Record<string, unknown>,
  options: SendOptions = {},
): Promise<SlackAppResponse> {
  return sendSigned(appUrl, signingSecret, JSON.stringify(envelope), "application/json", options);
}

/**
 * Slack's retry of a delivery: the same body, `x-slack-retry-num`, and a fresh signature
 * dated `retryNum` seconds after the first (Slack retries after about 0 s, 1 min and 5 min;
 * a test cannot wait, and the point is that the retry is signed anew, not resent as it was).
 */
export async function redeliverEvent(
  appUrl: string,
  signingSecret: string,
  sent: Pick<SentEvent, "rawBody" | "timestamp" | "eventId">,
  retryNum: number,
  retryReason = "http_timeout",
): Promise<SentEvent> {
  const timestamp = sent.timestamp + retryNum;
  const response = await sendSigned(appUrl, signingSecret, sent.rawBody, "application/json", {
    timestamp,
    headers: { "x-slack-retry-num": String(retryNum), "x-slack-retry-reason": retryReason },
  });
  return { ...response, eventId: sent.eventId, rawBody: sent.rawBody, timestamp };
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A slash command invocation, form-encoded as Slack sends it. */
export async function sendCommand(
  appUrl: string,
  signingSecret: string,
  input: CommandInput,
  options: SendOptions = {},
): Promise<SlackAppResponse> {
  const fields = commandFields(input);
  // The fake of this workspace refuses a command its installed app could not receive.
  beforeDelivery("slash_commands", fields.team_id, fields);
  const body = new URLSearchParams(fields).toString();
  return sendSigned(appUrl, signingSecret, body, "application/x-www-form-urlencoded", options);
}

/** An interaction (`block_actions`, …): form-encoded `payload=<json>`. */
export async function sendAction(
  appUrl: string,
  signingSecret: string,
  payload: Record<string, unknown>,
  options: SendOptions = {},
): Promise<SlackAppResponse> {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const team = (payload.team as { id?: unknown } | null | undefined)?.id;
  beforeDelivery("interactive", team, payload);
  const response = await sendSigned(
    appUrl,
    signingSecret,
    body,
    "application/x-www-form-urlencoded",
    options,
  );
  // The fake of this workspace checks the answer against the views it opened.
  if (response.status === 200) afterDelivery("interactive", team, payload, response.json);
  return response;
}

/**
 * A modal submission, sent like any interaction; the answer may carry
 * `{response_action: "errors", errors: {…}}` in `json`.
 */
export function sendViewSubmission(
  appUrl: string,
  signingSecret: string,
  payload: Record<string, unknown>,
  options: SendOptions = {},
): Promise<SlackAppResponse> {
  return sendAction(appUrl, signingSecret, payload, options);
}
