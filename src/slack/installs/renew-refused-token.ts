import { WebAPIRequestError } from "@slack/web-api";
import type { FetchFunction } from "../rate-budget/slack-budget.ts";
import { InstallUnavailable, type TokenSource } from "./token-source.ts";

const REFUSED_TOKEN = new Set(["token_expired", "invalid_auth", "token_revoked"]);

export interface RenewOptions {
  /**
   * Past this Slack's refusal stands (the renewal goes on for the next call): a `trigger_id` lives
   * 3 s.
   */
  withinMs?: number;
}

/** A `fetch` that sends a call Slack refused for its token once more with the renewed token. */
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
    // An install that lost its tokens fails as having none, not with Slack's `token_expired`.
    if (fresh === undefined) await installToken(tokens, key);
    if (fresh === undefined || fresh === token || !resendable(init.body)) return first;
    return fetch(input, withBearer(init, fresh));
  };
}

/**
 * No token is thrown as the client's request error, which it passes on without logging each call.
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
    renewal.catch(() => undefined);
  }
}

function bearerOf(init: RequestInit): string | undefined {
  const header = new Headers(init.headers).get("authorization") ?? "";
  return header.startsWith("Bearer ") ? header.slice("Bearer ".length) : undefined;
}

/** Read from a copy: the body is left whole. */
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

function resendable(body: RequestInit["body"]): boolean {
  return !(body instanceof ReadableStream);
}
