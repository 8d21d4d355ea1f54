import { WebAPIRequestError, type WebClient } from "@slack/web-api";
import { LRUCache } from "lru-cache";
import type { FetchFunction } from "../rate-budget/slack-budget.ts";
import { callScopeOf, callTeamOf, rateWorkspaceOf } from "./install-key.ts";
import { InstallUnavailable, type TokenSource } from "./token-source.ts";

/** Installs whose clients are kept at once; one past it drops the longest unused. */
const MAX_INSTALLS = 500;

/** Slack's answers that mean the token, not the call, was refused: a new one may pass. */
const REFUSED_TOKEN = new Set(["token_expired", "invalid_auth", "token_revoked"]);

/** The job runner's two clients of one install (see `SlackGatewayOptions`). */
export interface InstallClients {
  client: WebClient;
  urgentClient: WebClient;
}

/**
 * A `fetch` that sends each request with the install's bot token as it is now (rotation
 * may have replaced it since the last call), and, when Slack refuses that token, sends it
 * once more with the one `tokens.refused` gives (none: Slack's answer stands).
 * `install`: the install the request is made for, read per request.
 */
export function withInstallToken(
  fetch: FetchFunction,
  tokens: TokenSource,
  install: () => string,
): FetchFunction {
  return async (input, init = {}) => {
    const key = install();
    const token = await tokenOf(tokens, key);
    const first = await fetch(input, withBearer(init, token));
    const refused = await refusedTokenError(first);
    if (refused === undefined) return first;
    const fresh = await tokens.refused(key, token, refused);
    // None to try: when that is because the install lost its tokens (a refresh token Slack
    // refused), the call fails as one that has no token, not with Slack's `token_expired`.
    if (fresh === undefined) await tokenOf(tokens, key);
    if (fresh === undefined || fresh === token || !resendable(init.body)) return first;
    return fetch(input, withBearer(init, fresh));
  };
}

/**
 * Builds a client without a token, its `fetch` the budget's passed through `wrap`, and with
 * `teamId` (the WebClient's option of that name) when its calls must name their workspace.
 * `rateWorkspace`: the workspace whose Slack rate limits its calls count against.
 */
export type MakeInstallClient = (
  urgent: boolean,
  wrap: (fetch: FetchFunction) => FetchFunction,
  teamId: string | undefined,
  rateWorkspace: string,
) => WebClient;

/**
 * The job runner's Web API clients per install, made on first use and kept (bounded):
 * `makeClient` builds one with the budget's `fetch` the caller chooses, and this wraps that
 * `fetch` with the install's token ({@link withInstallToken}). An org-wide install has
 * clients per workspace of its organisation, each naming its workspace on every call.
 */
export class InstallClientCache {
  readonly #tokens: TokenSource;
  readonly #make: MakeInstallClient;
  readonly #cache: LRUCache<string, InstallClients>;

  constructor(options: { tokens: TokenSource; makeClient: MakeInstallClient; max?: number }) {
    this.#tokens = options.tokens;
    this.#make = options.makeClient;
    this.#cache = new LRUCache({ max: options.max ?? MAX_INSTALLS });
  }

  /**
   * The clients of `install` for calls in workspace `teamId` (a job's `origin.teamId`): the
   * install's own, or for an org-wide install its clients of that workspace.
   */
  clientsFor(install: string, teamId: string): InstallClients {
    const key = callScopeOf(install, teamId);
    const kept = this.#cache.get(key);
    if (kept !== undefined) return kept;
    const wrap = (fetch: FetchFunction) => withInstallToken(fetch, this.#tokens, () => install);
    const team = callTeamOf(install, teamId);
    const rateWorkspace = rateWorkspaceOf(install, teamId);
    const made = {
      client: this.#make(false, wrap, team, rateWorkspace),
      urgentClient: this.#make(true, wrap, team, rateWorkspace),
    };
    this.#cache.set(key, made);
    return made;
  }
}

/**
 * The install's bot token. When it has none ({@link InstallUnavailable}) the request is
 * never sent: that is said as the client's own request error (its cause the
 * InstallUnavailable), which the client passes on without a log line of its own — the
 * install's loss is said once, where it is found, not once per call.
 */
async function tokenOf(tokens: TokenSource, install: string): Promise<string> {
  try {
    return await tokens.botToken(install);
  } catch (error) {
    throw error instanceof InstallUnavailable ? new WebAPIRequestError(error) : error;
  }
}

function withBearer(init: RequestInit, token: string): RequestInit {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${token}`);
  return { ...init, headers };
}

/** Slack's `error` when the answer refuses the token; read from a copy, the body left whole. */
async function refusedTokenError(response: Response): Promise<string | undefined> {
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) return undefined;
  try {
    const body = (await response.clone().json()) as { ok?: unknown; error?: unknown };
    if (body.ok !== false || typeof body.error !== "string") return undefined;
    return REFUSED_TOKEN.has(body.error) ? body.error : undefined;
  } catch {
    return undefined;
  }
}

/** A body that can be sent twice (a stream is read once). */
function resendable(body: RequestInit["body"]): boolean {
  return !(body instanceof ReadableStream);
}
