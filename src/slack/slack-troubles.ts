import { platformErrorOf, TRANSIENT_PLATFORM_ERRORS } from "./gateway/slack-errors.ts";

/**
 * What a failed call to Slack with one of the bot's own tokens means to the person running
 * the bot: Slack refused the token (a person must change a variable), or Slack could not be
 * reached or answered like an outage (it passes by itself). The sentences below go to the
 * process's stderr or log, never to Slack users (their sentences live in the catalog).
 */
export type SlackTrouble =
  | { kind: "refused"; code: string }
  | { kind: "unreachable"; reason: string };

/**
 * Answers that refuse the token itself, whatever the method: Slack's common errors
 * `invalid_auth`, `not_authed`, `account_inactive`, `token_revoked`, `token_expired`,
 * `not_allowed_token_type`, and those the Socket Mode client also takes as final
 * (`user_removed_from_team`, `team_disabled`: @slack/socket-mode's
 * UnrecoverableSocketModeStartError).
 */
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
 * Sorts a failed call that only checks a token (`auth.test`, `apps.connections.open`): any
 * `{ok: false}` answer but a passing one refuses the token; everything else (no answer, a
 * reset, a DNS failure, a timeout, an HTTP error page, a 429, a WebSocket that would not
 * open) is Slack out of reach.
 */
export function troubleOf(error: unknown): SlackTrouble {
  const code = platformErrorOf(error);
  if (code !== undefined && !TRANSIENT_PLATFORM_ERRORS.has(code)) return { kind: "refused", code };
  return { kind: "unreachable", reason: code ?? reasonOf(error) };
}

/** Names why Slack could not be reached: a system error code where there is one. */
export function reasonOf(error: unknown): string {
  const e = error as { code?: unknown; statusCode?: unknown; original?: unknown } | undefined;
  if (e?.code === "slack_webapi_http_error") return `HTTP ${String(e.statusCode)}`;
  if (e?.code === "slack_webapi_rate_limited_error") return "rate limited";
  // fetch's "fetch failed" says nothing: its cause names the system error (ECONNREFUSED,
  // ENOTFOUND…) or at least the reason.
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

/** Where a new bot token is found, as a person with the app's settings open reads it. */
const BOT_TOKEN_FIX =
  "copy the Bot User OAuth Token (xoxb-…) from OAuth & Permissions on your app's page at https://api.slack.com/apps (install the app to the workspace again if it was removed) into SLACK_BOT_TOKEN";

/** Where a new app-level token is made, and the scope it needs. */
const APP_TOKEN_FIX =
  "generate an app-level token with the connections:write scope under Basic Information → App-Level Tokens on your app's page at https://api.slack.com/apps and put it in SLACK_APP_TOKEN";

/** The start stops: Slack refused the bot token. */
export const botTokenRefusedAtStart = (code: string) =>
  `meeting-notes cannot start because Slack refused SLACK_BOT_TOKEN (${code}): ${BOT_TOKEN_FIX}, then start it again.`;

/** The start stops: Slack refused the app-level token (Socket Mode). */
export const appTokenRefusedAtStart = (code: string) =>
  `meeting-notes cannot start because Slack refused SLACK_APP_TOKEN (${code}): ${APP_TOKEN_FIX}, then start it again.`;

/** The bot runs on, but Slack no longer takes its token (revoked, the app removed…). */
export const botTokenRefusedNow = (code: string) =>
  `Slack now refuses SLACK_BOT_TOKEN (${code}), so the bot can do nothing in Slack: ${BOT_TOKEN_FIX}, then restart the bot.`;

/** Socket Mode cannot reconnect: Slack no longer takes the app-level token. */
export const appTokenRefusedNow = (code: string) =>
  `Slack now refuses SLACK_APP_TOKEN (${code}), so no event, command or click reaches the bot: ${APP_TOKEN_FIX}, then restart the bot.`;
