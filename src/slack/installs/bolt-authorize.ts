import type { AuthorizeResult, AuthorizeSourceData } from "@slack/bolt";
import { optional } from "../../util/optional.ts";
import { installKeyOf } from "./install-key.ts";
import type { OAuthTokenSource } from "./oauth-token-source.ts";

/**
 * Bolt's `authorize` with installs by OAuth: the request's install (its `teamId`,
 * `enterpriseId`, `isEnterpriseInstall`, which Bolt reads from the payload) → that install's
 * bot, its token refreshed first when it is about to expire (the same source the job
 * runner's clients use). A request of a workspace with no install, or a revoked one,
 * rejects: Bolt turns it into an AuthorizationError (401 over HTTP, acked and dropped over
 * the socket: create-bolt-app.ts).
 */
export function oauthAuthorize(tokens: Pick<OAuthTokenSource, "installation">) {
  return async (source: AuthorizeSourceData<boolean>, body?: unknown): Promise<AuthorizeResult> => {
    // Bolt itself authorises `app_uninstalled` and `tokens_revoked` with no token (its
    // `eventTypesToSkipAuthorize`): they come after the token is gone. `team_access_revoked`
    // is the same kind of news, and its listener, not a 401, says whether the install is
    // ours — a failing store must not lose it either.
    if (eventTypeOf(body) === "team_access_revoked") return {};
    const install = installKeyOf(source);
    const { installation } = await tokens.installation(install);
    const bot = installation.bot;
    if (bot === undefined) throw new Error(`installation ${install} has no bot`);
    return {
      botToken: bot.token,
      botId: bot.id,
      botUserId: bot.userId,
      // An org-wide install serves every workspace of the org: the request's workspace.
      ...optional("teamId", source.teamId ?? installation.team?.id),
      ...optional("enterpriseId", source.enterpriseId ?? installation.enterprise?.id),
    };
  };
}

/** The event type of an Events API body, if it is one. */
function eventTypeOf(body: unknown): unknown {
  if (typeof body !== "object" || body === null || !("event" in body)) return undefined;
  const { event } = body;
  return typeof event === "object" && event !== null && "type" in event ? event.type : undefined;
}
