import type { Logger } from "../../logger.ts";
import { platformErrorOf, TRANSIENT_PLATFORM_ERRORS } from "../gateway/slack-errors.ts";
import type { FetchFunction } from "../rate-budget/slack-budget.ts";

/**
 * A failed call with the bot's own token: refused (a person must change a variable) or Slack
 * unreachable (it passes). The sentences below go to the log, never to Slack users.
 */
export type SlackTrouble =
  | { kind: "refused"; code: string }
  | { kind: "unreachable"; reason: string };

/** Refusals of the token whatever the method, with those @slack/socket-mode takes as final. */
export const TOKEN_REFUSALS: ReadonlySet<string> = new Set([
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "not_allowed_token_type",
  "user_removed_from_team",
  "team_disabled",
]);

/**
 * Sorts a failed token check (`auth.test`, `apps.connections.open`): any non-transient `ok: false`
 * refuses the token.
 */
export function troubleOf(error: unknown): SlackTrouble {
  const code = platformErrorOf(error);
  if (code !== undefined && !TRANSIENT_PLATFORM_ERRORS.has(code)) return { kind: "refused", code };
  return { kind: "unreachable", reason: code ?? reasonOf(error) };
}

export function reasonOf(error: unknown): string {
  const e = error as { code?: unknown; statusCode?: unknown; original?: unknown } | undefined;
  if (e?.code === "slack_webapi_http_error") return `HTTP ${String(e.statusCode)}`;
  if (e?.code === "slack_webapi_rate_limited_error") return "rate limited";
  // fetch's "fetch failed" says nothing: its cause names the system error (ECONNREFUSED…).
  const original = (e?.original ?? error) as
    | { name?: unknown; message?: unknown; code?: unknown; cause?: unknown }
    | undefined;
  const cause = original?.cause as { code?: unknown; message?: unknown } | undefined;
  const system = cause?.code ?? original?.code;
  if (typeof system === "string") return system;
  if (original?.name === "TimeoutError") return "no answer in time";
  for (const message of [cause?.message, original?.message]) {
    if (typeof message === "string" && message !== "") return message;
  }
  return "no connection";
}

const BOT_TOKEN_FIX =
  "copy the Bot User OAuth Token (xoxb-…) from OAuth & Permissions on your app's page at https://api.slack.com/apps (install the app to the workspace again if it was removed) into SLACK_BOT_TOKEN";

const APP_TOKEN_FIX =
  "generate an app-level token with the connections:write scope under Basic Information → App-Level Tokens on your app's page at https://api.slack.com/apps and put it in SLACK_APP_TOKEN";

export const botTokenRefusedAtStart = (code: string) =>
  `meeting-notes cannot start because Slack refused SLACK_BOT_TOKEN (${code}): ${BOT_TOKEN_FIX}, then start it again.`;

export const appTokenRefusedAtStart = (code: string) =>
  `meeting-notes cannot start because Slack refused SLACK_APP_TOKEN (${code}): ${APP_TOKEN_FIX}, then start it again.`;

export const botTokenRefusedNow = (code: string) =>
  `Slack now refuses SLACK_BOT_TOKEN (${code}), so the bot can do nothing in Slack: ${BOT_TOKEN_FIX}, then restart the bot.`;

export const appTokenRefusedNow = (code: string) =>
  `Slack now refuses SLACK_APP_TOKEN (${code}), so no event, command or click reaches the bot: ${APP_TOKEN_FIX}, then restart the bot.`;

/** Tells the person running the bot when Slack stops taking the bot token, once. */
export interface TokenWatch {
  /** Refusals are told from now on (before, the start-up says why it stops). */
  arm(): void;
  failed(code: string | undefined): void;
  accepted(): void;
}

/**
 * Turns every call's token refusal into one error line naming SLACK_BOT_TOKEN, told again only
 * after Slack took the token in between. `onRefused` lets readiness ask Slack now.
 */
export function createTokenWatch(logger: Logger, onRefused: () => void = () => {}): TokenWatch {
  let armed = false;
  let told = false;
  return {
    arm() {
      armed = true;
    },
    failed(code) {
      if (!armed || code === undefined || !TOKEN_REFUSALS.has(code) || told) return;
      told = true;
      logger.error({ slackError: code }, botTokenRefusedNow(code));
      onRefused();
    },
    accepted() {
      told = false;
    },
  };
}

/**
 * `fetch`, calling `onOutage` on a network error, a timeout or a 5xx: signs Slack may be down
 * (an `ok: false` or a 429 says it is up; a request its caller aborted says nothing).
 */
export function noticeOutages(fetch: FetchFunction, onOutage: () => void): FetchFunction {
  return async (input, init) => {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if ((error as { name?: unknown }).name !== "AbortError") onOutage();
      throw error;
    }
    if (response.status >= 500) onOutage();
    return response;
  };
}
