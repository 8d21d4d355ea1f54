import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type ApiRequest, readApiRequest } from "./api-args.ts";
import { canvasMethods } from "./canvas-methods.ts";
import { chatMethods } from "./chat-methods.ts";
import { conversationMethods } from "./conversation-methods.ts";
import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { FakeCall } from "./fake-slack-types.ts";
import type { DownloadKnobs } from "./file-download.ts";
import { fileMethods } from "./file-methods.ts";
import { historyMethods } from "./history-methods.ts";
import type { Tenancy, TokenRecord } from "./installations.ts";
import type { ApiMethod } from "./message-helpers.ts";
import { rateKeys } from "./rate-tiers.ts";
import { scopeRefusal } from "./scopes.ts";
import { SlackApiError } from "./slack-api-error.ts";
import type { UploadFailure } from "./upload-receiver.ts";
import { viewMethods } from "./view-methods.ts";

/** Fault knobs of the fake; change them freely between (or during) requests. */
export interface FakeSlackKnobs extends DownloadKnobs {
  /**
   * Paginated lists give at most this many items a page whatever `limit` asked for, as
   * Slack may ("It's possible to receive fewer results than your specified limit, even
   * when there are additional results to retrieve", https://docs.slack.dev/apis/web-api/pagination).
   */
  pageMax?: number | undefined;
  /** HTTP 429 with `Retry-After: retryAfter` (seconds) for the next `count` calls of `method`. */
  rateLimit?: { method: string; count: number; retryAfter: number } | undefined;
  /** `{ok: false, error}` for the next call of `method`, once. */
  failNext?: { method: string; error: string } | undefined;
  /** The upload URL answers `status` to the next `count` uploads. */
  failUploads?: UploadFailure | undefined;
  /**
   * Multiplies every rate tier's budget (rate-tiers.ts); default 1. Below 1 a test reaches a
   * limit sooner, above 1 later; `Infinity` lifts the tiers (the `rateLimit` knob still works).
   */
  rateScale?: number | undefined;
  /** Milliseconds the fake waits before answering a method: per method, or computed. */
  latencyMs?:
    | Readonly<Record<string, number>>
    | ((method: string, args: Record<string, unknown>) => number)
    | undefined;
  /** The fake's clock (ms since the epoch) for trigger expiry and rate budgets. */
  now?: (() => number) | undefined;
  /**
   * Slack out of reach, for every Web API method while set: `{ status }` answers that HTTP
   * status with an HTML page, as an outage page or a proxy in front of Slack does (never
   * `ok: true`, never a Slack error the SDK would read as a refusal); `hang` reads the
   * request and never answers it (until the fake closes). Not Slack's behaviour when up —
   * a fault to inject; the call is still recorded.
   */
  outage?: { status: number } | "hang" | undefined;
  /**
   * Every Web API call with the bot token (`bot`) or the app-level token (`app`) refused
   * with this error, HTTP 200 `{ok: false, error}` as Slack refuses a token: `token_revoked`
   * once the app is removed, `account_inactive` for a deleted bot user or workspace,
   * `invalid_auth`, `not_authed` (https://api.slack.com/methods/auth.test, "Errors").
   */
  refuseToken?: { bot?: string; app?: string } | undefined;
  /**
   * Seconds a rotating access token lives when issued (default 43,200: "it expires every 12
   * hours", https://docs.slack.dev/authentication/using-token-rotation); short in tests.
   */
  tokenExpiresIn?: number | undefined;
  /**
   * Holds a call in flight while the promise it gives is pending: at `received`, before the
   * fake acts on the call (it then acts on the world as it is by then), or at `answered`,
   * once it acted, before the answer leaves. A timing to force (a reinstall landing while a
   * token refresh is under way), not Slack's behaviour; `undefined` lets the call go on.
   */
  hold?:
    | ((call: FakeCall, phase: "received" | "answered") => Promise<void> | undefined)
    | undefined;
}

/** A method called with the app's client credentials instead of a token (`oauth.v2.access`). */
export type ClientMethod = (
  args: Record<string, unknown>,
  headers: IncomingMessage["headers"],
) => Record<string, unknown>;

/**
 * Who may call what: bot- and user-token methods ({@link API_METHODS}), whose tokens the
 * tenancy knows (installations.ts); app-level-token methods (`apps.connections.open` when
 * the fake runs a Socket Mode server); client-credential methods (`oauth.v2.access`).
 */
export interface ApiAuth {
  tenancy: Tenancy;
  /** The first workspace: it answers calls that no token places in a workspace. */
  home: FakeSlackStore;
  appToken?: string | undefined;
  appMethods?: Readonly<Record<string, ApiMethod>>;
  clientMethods?: Readonly<Record<string, ClientMethod>>;
  /** Bot-token methods of this fake beyond {@link API_METHODS} (`functions.*`). */
  botMethods?: Readonly<Record<string, ApiMethod>>;
}

/** Every Web API method the fake implements. */
export const API_METHODS: Readonly<Record<string, ApiMethod>> = {
  ...canvasMethods,
  ...chatMethods,
  ...conversationMethods,
  ...historyMethods,
  ...fileMethods,
  ...viewMethods,
};

/** What the fake answers a call: status, JSON body, extra headers. */
interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** A 429's Retry-After, announced once the answer is written. */
  window?: { store: FakeSlackStore; key: string; seconds: number };
}

/**
 * Answers `/api/<method>` the way Slack does: errors are HTTP 200 `{ok: false, error}`,
 * except rate limiting (HTTP 429 + `Retry-After`). Every request lands in `store.calls`;
 * the answer waits for the `latencyMs` knob.
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
  const arrivedAt = store.now();
  store.calls.push(call);
  if (knobs.outage !== undefined) return answerOutage(req, res, knobs.outage, call);
  const reply = await answerCall(req, method, store, auth, knobs, { call, arrivedAt });
  await knobs.hold?.(call, "answered");
  call.status = reply.status;
  if (reply.body.ok === false) {
    call.error = String(reply.body.error);
    // FAKE_SLACK_TRACE=1: each refusal on stderr, to see why an end-to-end test stalled.
    if (process.env.FAKE_SLACK_TRACE === "1") {
      const after = reply.headers?.["retry-after"];
      const needed = reply.body.needed;
      const extra =
        (after === undefined ? "" : ` retry-after ${after}`) +
        (typeof needed === "string" ? ` needed ${needed}` : "");
      process.stderr.write(`fake Slack: ${method} → ${reply.status} ${call.error}${extra}\n`);
    }
  }
  const latency = latencyOf(knobs, method, call.args);
  if (latency > 0) await sleep(latency);
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    ...reply.headers,
  });
  res.end(text);
  const window = reply.window;
  window?.store.rates.announce(window.key, window.store.now(), window.seconds);
}

/** The `outage` knob: an HTML error page, or no answer at all. */
async function answerOutage(
  req: IncomingMessage,
  res: ServerResponse,
  outage: NonNullable<FakeSlackKnobs["outage"]>,
  call: FakeCall,
): Promise<void> {
  for await (const _chunk of req) {
    // Read the request whole, as a server that accepted it would.
  }
  if (outage === "hang") {
    call.status = 0;
    return;
  }
  call.status = outage.status;
  const page = "<html><body>Slack is unavailable</body></html>";
  res.writeHead(outage.status, { "content-type": "text/html", "content-length": page.length });
  res.end(page);
}

async function answerCall(
  req: IncomingMessage,
  method: string,
  home: FakeSlackStore,
  auth: ApiAuth,
  knobs: FakeSlackKnobs,
  { call, arrivedAt }: { call: FakeCall; arrivedAt: number },
): Promise<Answer> {
  let request: ApiRequest;
  try {
    request = await readApiRequest(req, new URL(req.url ?? "/", "http://x"));
  } catch (error) {
    return refusal(error instanceof SlackApiError ? error : new SlackApiError("invalid_form_data"));
  }
  call.args = request.args;
  await knobs.hold?.(call, "received");
  const appMethod = auth.appMethods?.[method];
  const clientMethod = auth.clientMethods?.[method];
  const kind = appMethod === undefined ? "bot" : "app";
  // The workspace answering the call: the token's (or, for an org-wide token, the one the
  // call names); a token that is refused, or none, leaves it at the first workspace.
  const who =
    kind === "bot" && clientMethod === undefined
      ? auth.tenancy.authenticate(request.token)
      : undefined;
  let store = home;
  let placement: SlackApiError | undefined;
  if (who !== undefined && typeof who !== "string") {
    try {
      store = auth.tenancy.storeFor(who, method, request.args);
    } catch (error) {
      if (!(error instanceof SlackApiError)) throw error;
      placement = error;
    }
  }
  const limited = rateLimited(method, request.args, store, knobs, { stage: "knob", arrivedAt });
  if (limited !== undefined) return limited;
  if (clientMethod !== undefined) return answer(() => clientMethod(request.args, req.headers));

  const handler = appMethod ?? auth.botMethods?.[method] ?? API_METHODS[method];
  if (handler === undefined) return refusal(new SlackApiError("unknown_method"));
  const token = tokenRefusal(request.token, kind, auth, who) ?? knobs.refuseToken?.[kind];
  if (token !== undefined) return refusal(new SlackApiError(token));
  if (placement !== undefined) return refusal(placement);
  const tiered = rateLimited(method, request.args, store, knobs, { stage: "tiers", arrivedAt });
  if (tiered !== undefined) return tiered;
  const caller = typeof who === "object" ? who : undefined;
  // App-level tokens carry the app's own scopes (connections:write), not the bot's.
  if (store.strict.scopes && appMethod === undefined && caller !== undefined) {
    const granted =
      caller.kind === "user" ? caller.installation.userScopes : caller.installation.botScopes;
    const missing = scopeRefusal(method, request.args, store, granted);
    if (missing !== undefined) return refusal(missing);
  }
  const fail = knobs.failNext;
  if (fail !== undefined && fail.method === method) {
    knobs.failNext = undefined;
    return refusal(new SlackApiError(fail.error));
  }
  const args = pageCapped(request.args, knobs.pageMax);
  return answer(() =>
    handler(
      args,
      store,
      caller === undefined ? undefined : { record: caller, tenancy: auth.tenancy },
    ),
  );
}

/** `limit` lowered to the `pageMax` knob; a limit Slack refuses is left for the method to refuse. */
function pageCapped(
  args: Record<string, unknown>,
  pageMax: number | undefined,
): Record<string, unknown> {
  if (pageMax === undefined) return args;
  const asked = args.limit === undefined ? undefined : Number(args.limit);
  if (asked !== undefined && !(asked < 1000)) return args;
  return { ...args, limit: Math.min(asked ?? pageMax, pageMax) };
}

/** The success body of a method, or its refusal; a bug in the fake says so plainly. */
function answer(run: () => Record<string, unknown>): Answer {
  try {
    return { status: 200, body: { ok: true, ...run() } };
  } catch (error) {
    if (error instanceof SlackApiError) return refusal(error);
    // A bug in the fake must not pass for a Slack answer, nor be retried for half an hour
    // by the SDK (it retries HTTP 5xx): say so plainly in an `ok: false`.
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`fake Slack: failed: ${detail}\n`);
    return refusal(new SlackApiError("fake_slack_internal_error", String(error)));
  }
}

/**
 * HTTP 429 `ratelimited` with `Retry-After` (https://docs.slack.dev/apis/web-api/rate-limits)
 * from the `rateLimit` knob (`stage: "knob"`, which also records calls made inside a window
 * the fake announced) or from the method's rate tier (`stage: "tiers"`). Slack's rule is on
 * the caller, who waits Retry-After from receiving it: a call counts as inside a window when
 * it arrived after the 429 was written (`arrivedAt`, the fake's clock), not when the fake
 * got round to it.
 */
function rateLimited(
  method: string,
  args: Record<string, unknown>,
  store: FakeSlackStore,
  knobs: FakeSlackKnobs,
  { stage, arrivedAt }: { stage: "knob" | "tiers"; arrivedAt: number },
): Answer | undefined {
  const now = store.now();
  const methodKey = `${store.workspace.teamId}/${method}`;
  const tiers = store.strict.rateTiers
    ? rateKeys(store.workspace.teamId, method, args, store.distributedApp)
    : [];
  if (stage === "tiers") {
    const refused = store.rates.take(tiers, now, knobs.rateScale ?? 1);
    if (refused === undefined) return undefined;
    return ratelimited(refused.retryAfter, { store, key: refused.key });
  }
  const keys = [...new Set([methodKey, ...tiers.map((t) => t.key)])];
  for (const inside of store.rates.inWindow(keys, arrivedAt)) {
    store.violations.push({
      rule: "retry_after",
      method,
      detail: `${inside.key} called ${inside.leftMs} ms before its Retry-After window ended`,
      at: arrivedAt,
    });
  }
  const limit = knobs.rateLimit;
  if (limit === undefined || limit.method !== method || limit.count <= 0) return undefined;
  limit.count -= 1;
  if (limit.count === 0) knobs.rateLimit = undefined;
  return ratelimited(limit.retryAfter, { store, key: methodKey });
}

function ratelimited(seconds: number, window: { store: FakeSlackStore; key: string }): Answer {
  return {
    status: 429,
    body: { ok: false, error: "ratelimited" },
    headers: { "retry-after": String(seconds) },
    window: { ...window, seconds },
  };
}

function latencyOf(knobs: FakeSlackKnobs, method: string, args: Record<string, unknown>): number {
  const latency = knobs.latencyMs;
  if (latency === undefined) return 0;
  const ms = typeof latency === "function" ? latency(method, args) : latency[method];
  return typeof ms === "number" && ms > 0 ? ms : 0;
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
  who: TokenRecord | string | undefined,
): string | undefined {
  if (token === undefined || token === "") return "not_authed";
  if (needs === "app") {
    if (token === auth.appToken) return undefined;
    return auth.tenancy.tokens.has(token) ? "not_allowed_token_type" : "invalid_auth";
  }
  if (token === auth.appToken) return "not_allowed_token_type";
  return typeof who === "string" ? who : undefined;
}

function refusal(error: SlackApiError): Answer {
  return { status: 200, body: error.toBody() };
}
