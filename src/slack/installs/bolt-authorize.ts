import type { AuthorizeResult, AuthorizeSourceData } from "@slack/bolt";
import { optional } from "../../util/optional.ts";
import { installKeyOf } from "./install-key.ts";
import type { OAuthTokenSource } from "./oauth-token-source.ts";

/**
 * Bolt's `authorize` with installs by OAuth; no install, or a revoked one, rejects (an
 * AuthorizationError).
 */
export function oauthAuthorize(tokens: Pick<OAuthTokenSource, "installation">) {
  return async (source: AuthorizeSourceData<boolean>, body?: unknown): Promise<AuthorizeResult> => {
    // Like Bolt's `eventTypesToSkipAuthorize`: it comes after the token is gone, and its
    // listener, not a 401, says whether the install is ours.
    const event = (body as { event?: { type?: unknown } } | undefined)?.event;
    if (event?.type === "team_access_revoked") return {};
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
