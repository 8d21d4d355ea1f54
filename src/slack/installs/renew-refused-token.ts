import { WebAPIRequestError } from "@slack/web-api";
import type { FetchFunction } from "../rate-budget/slack-budget.ts";
import { InstallUnavailable, type TokenSource } from "./token-source.ts";

/** Slack's answers that mean the token, not the call, was refused: a new one may pass. */
const REFUSED_TOKEN = new Set(["token_expired", "invalid_auth", "token_revoked"]);

export interface RenewOptions {
  /**
   * The longest the renewal may take before Slack's refusal is given back as it is (the
   * renewal goes on, and the next call finds its token). For calls a person waits on: a
   * `trigger_id` lives 3 seconds, and another replica's refresh may hold the lease longer.
   */
  withinMs?: number;
}

/**
 * A `fetch` that, when Slack refuses the bearer token a request carried (`token_expired`,
 * `invalid_auth`, `token_revoked`), sends it once more with the token `tokens.refused`
 * gives (none: Slack's answer stands). `install`: the install the request is made for,
 * read per request. Both the job runner's clients and the listeners' client send through
 * it, so a refused token is renewed once, the same way, wherever it is met.
 */
export function renewRefusedToken(
  fetch: FetchFunction,
  tokens: TokenSource,
  install: () => string,
  options: RenewOptions = {},
): FetchFunction {
  return async (input, init = {}) => {
    const first = await fetch(input, init);
    const refused = await refusedTokenError(first);
    const token = bearerOf(init);
    if (refused === undefined || token === undefined) return first;
    const key = install();
    const fresh = await within(tokens.refused(key, token, refused), options.withinMs);
    if (fresh === LATE) return first;
    // None to try: when that is because the install lost its tokens (a refresh token Slack
    // refused), the call fails as one that has no token, not with Slack's `token_expired`.
    if (fresh === undefined) await installToken(tokens, key);
    if (fresh === undefined || fresh === token || !resendable(init.body)) return first;
    return fetch(input, withBearer(init, fresh));
  };
}

/**
 * The install's bot token. When it has none ({@link InstallUnavailable}) the request is
 * never sent: that is said as the client's own request error (its cause the
 * InstallUnavailable), which the client passes on without a log line of its own — the
 * install's loss is said once, where it is found, not once per call.
 */
export async function installToken(tokens: TokenSource, install: string): Promise<string> {
  try {
    return await tokens.botToken(install);
  } catch (error) {
    throw error instanceof InstallUnavailable ? new WebAPIRequestError(error) : error;
  }
}

export function withBearer(init: RequestInit, token: string): RequestInit {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${token}`);
  return { ...init, headers };
}

const LATE = Symbol("late");

/** The renewal's outcome, or {@link LATE} once `ms` has passed (the renewal left to finish). */
async function within<T>(renewal: Promise<T>, ms: number | undefined): Promise<T | typeof LATE> {
  if (ms === undefined) return renewal;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  try {
    return await Promise.race([renewal, late]);
  } finally {
    clearTimeout(timer);
    // What it comes to after the wait is the next call's (stored); its failure too.
    renewal.catch(() => undefined);
  }
}

function bearerOf(init: RequestInit): string | undefined {
  const header = new Headers(init.headers).get("authorization") ?? "";
  return header.startsWith("Bearer ") ? header.slice("Bearer ".length) : undefined;
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
