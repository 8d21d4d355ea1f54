import type { IncomingMessage, ServerResponse } from "node:http";
import { type ApiRequest, readApiRequest } from "./api-args.ts";
import { canvasMethods } from "./canvas-methods.ts";
import { chatMethods } from "./chat-methods.ts";
import { conversationMethods } from "./conversation-methods.ts";
import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { FakeCall } from "./fake-slack-types.ts";
import type { DownloadKnobs } from "./file-download.ts";
import { fileMethods } from "./file-methods.ts";
import type { ApiMethod } from "./message-helpers.ts";
import { SlackApiError } from "./slack-api-error.ts";
import type { UploadFailure } from "./upload-receiver.ts";
import { viewMethods } from "./view-methods.ts";

/** Fault knobs of the fake; change them freely between (or during) requests. */
export interface FakeSlackKnobs extends DownloadKnobs {
  /** HTTP 429 with `Retry-After: retryAfter` (seconds) for the next `count` calls of `method`. */
  rateLimit?: { method: string; count: number; retryAfter: number } | undefined;
  /** `{ok: false, error}` for the next call of `method`, once. */
  failNext?: { method: string; error: string } | undefined;
  /** The upload URL answers `status` to the next `count` uploads. */
  failUploads?: UploadFailure | undefined;
}

/**
 * Who may call what: bot-token methods ({@link API_METHODS}) and app-level-token methods
 * (`apps.connections.open` when the fake runs a Socket Mode server).
 */
export interface ApiAuth {
  botToken: string;
  appToken?: string | undefined;
  appMethods?: Readonly<Record<string, ApiMethod>>;
}

/** Every Web API method the fake implements. */
export const API_METHODS: Readonly<Record<string, ApiMethod>> = {
  ...canvasMethods,
  ...chatMethods,
  ...conversationMethods,
  ...fileMethods,
  ...viewMethods,
};

/**
 * Answers `/api/<method>` the way Slack does: errors are HTTP 200 `{ok: false, error}`,
 * except rate limiting (HTTP 429 + `Retry-After`). Every request lands in `store.calls`.
 */
export async function handleApiRequest(
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  store: FakeSlackStore,
  auth: ApiAuth,
  knobs: FakeSlackKnobs,
): Promise<void> {
  const call: FakeCall = { method, args: {}, headers: req.headers, at: Date.now(), status: 200 };
  store.calls.push(call);
  let request: ApiRequest;
  try {
    request = await readApiRequest(req, new URL(req.url ?? "/", "http://x"));
  } catch (error) {
    reply(
      res,
      call,
      error instanceof SlackApiError ? error : new SlackApiError("invalid_form_data"),
    );
    return;
  }
  call.args = request.args;

  const limit = knobs.rateLimit;
  if (limit !== undefined && limit.method === method && limit.count > 0) {
    limit.count -= 1;
    if (limit.count === 0) knobs.rateLimit = undefined;
    call.status = 429;
    call.error = "ratelimited";
    send(
      res,
      429,
      { ok: false, error: "ratelimited" },
      { "retry-after": String(limit.retryAfter) },
    );
    return;
  }
  const appMethod = auth.appMethods?.[method];
  const handler = appMethod ?? API_METHODS[method];
  if (handler === undefined) return reply(res, call, new SlackApiError("unknown_method"));
  const refusal = tokenRefusal(request.token, appMethod === undefined ? "bot" : "app", auth);
  if (refusal !== undefined) return reply(res, call, new SlackApiError(refusal));
  const fail = knobs.failNext;
  if (fail !== undefined && fail.method === method) {
    knobs.failNext = undefined;
    return reply(res, call, new SlackApiError(fail.error));
  }
  try {
    send(res, 200, { ok: true, ...handler(request.args, store) });
  } catch (error) {
    if (error instanceof SlackApiError) return reply(res, call, error);
    // A bug in the fake must not pass for a Slack answer, nor be retried for half an hour
    // by the SDK (it retries HTTP 5xx): say so plainly in an `ok: false`.
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`fake Slack: ${method} failed: ${detail}\n`);
    return reply(res, call, new SlackApiError("fake_slack_internal_error", String(error)));
  }
}

/**
 * Slack's answer to a missing or wrong token: `not_authed`, `invalid_auth`, or
 * `not_allowed_token_type` for a real token of the other kind (an app-level token calling
 * `chat.postMessage`, a bot token calling `apps.connections.open`).
 */
function tokenRefusal(
  token: string | undefined,
  needs: "bot" | "app",
  auth: ApiAuth,
): string | undefined {
  if (token === undefined || token === "") return "not_authed";
  const [wanted, other] =
    needs === "bot" ? [auth.botToken, auth.appToken] : [auth.appToken, auth.botToken];
  if (token === wanted) return undefined;
  return token === other ? "not_allowed_token_type" : "invalid_auth";
}

function reply(res: ServerResponse, call: FakeCall, error: SlackApiError): void {
  call.error = error.error;
  send(res, 200, error.toBody());
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}
