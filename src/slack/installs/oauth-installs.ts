import { createRequire } from "node:module";
import { WebClient } from "@slack/web-api";
import type { OAuthConfig } from "../../config.ts";
import type { Route } from "../../http/http-surface.ts";
import { type Logger, toSlackLogger } from "../../logger.ts";
import type { Store } from "../../store/index.ts";
import { optional } from "../../util/optional.ts";
import { oauthAuthorize } from "./bolt-authorize.ts";
import { BOT_SCOPES } from "./bot-scopes.ts";
import { type InstallRecords, installRecords } from "./install-records.ts";
import { installRoutes } from "./install-routes.ts";
import { EncryptedInstallationStore } from "./installation-store.ts";
import { onceStateStore, STATE_COOKIE, STATE_LIFETIME_S } from "./oauth-state.ts";
import { OAuthTokenSource, type RefreshAnswer } from "./oauth-token-source.ts";

// CommonJS, loaded as create-bolt-app.ts loads Bolt's classes — and only in OAuth mode: a
// single-token app never loads the installer.
const require = createRequire(import.meta.url);

/** Everything installs by OAuth add to the app (src/app.ts wires it). */
export interface OAuthInstalls {
  /** The encrypted installations. */
  installs: EncryptedInstallationStore;
  /** Each install's bot token, refreshed under the store's lease (the job runner's too). */
  tokens: OAuthTokenSource;
  /** Bolt's `authorize`. */
  authorize: ReturnType<typeof oauthAuthorize>;
  /** `GET /slack/install` and `GET /slack/oauth_redirect`. */
  routes: Route[];
  /** What forgetting an install asks of its record: is it ours, whose bot, delete it. */
  records: InstallRecords;
}

export function createOAuthInstalls(o: {
  oauth: OAuthConfig;
  apiUrl: string;
  store: Store;
  logger: Logger;
  /** Told once when an install is found revoked (its refresh token refused). */
  onRevoked?: (install: string) => void;
}): OAuthInstalls {
  const logger = o.logger.child({ name: "installs" });
  const installs = new EncryptedInstallationStore({ store: o.store, key: o.oauth.tokenKey });
  // Calls with the app's client credentials (no token): the exchange and the refresh.
  const client = new WebClient(undefined, {
    slackApiUrl: o.apiUrl,
    logger: toSlackLogger(logger),
    retryConfig: { retries: 0 },
  });
  const refresh = async (refreshToken: string): Promise<RefreshAnswer> => {
    const answer = await client.oauth.v2.access({
      client_id: o.oauth.clientId,
      client_secret: o.oauth.clientSecret,
      grant_type: "refresh_token",
      refresh_token: refreshToken,
    });
    if (
      typeof answer.access_token !== "string" ||
      typeof answer.refresh_token !== "string" ||
      typeof answer.expires_in !== "number"
    ) {
      throw new Error("oauth.v2.access answered a refresh without a token or its expiry");
    }
    return {
      access_token: answer.access_token,
      refresh_token: answer.refresh_token,
      expires_in: answer.expires_in,
    };
  };
  const tokens = new OAuthTokenSource({
    installs,
    store: o.store,
    refresh,
    logger,
    ...optional("onRevoked", o.onRevoked),
  });
  const { InstallProvider } = require("@slack/oauth") as typeof import("@slack/oauth");
  const states = onceStateStore({ secret: o.oauth.stateSecret, store: o.store });
  const installOptions = { scopes: [...BOT_SCOPES], redirectUri: o.oauth.redirectUrl };
  const provider = new InstallProvider({
    clientId: o.oauth.clientId,
    clientSecret: o.oauth.clientSecret,
    stateStore: states,
    stateCookieName: STATE_COOKIE,
    stateCookieExpirationSeconds: STATE_LIFETIME_S,
    installationStore: installs,
    installUrlOptions: installOptions,
    // Slack's consent page on the Web API's host (see consentPageOf).
    authorizationUrl: consentPageOf(o.apiUrl),
    logger: toSlackLogger(logger),
    clientOptions: { slackApiUrl: o.apiUrl, retryConfig: { retries: 0 } },
  });
  return {
    installs,
    tokens,
    authorize: oauthAuthorize(tokens),
    routes: installRoutes({
      provider,
      states,
      installOptions,
      logger,
      onInstalled: (install) => tokens.forget(install),
    }),
    records: installRecords(installs, (install) => tokens.forget(install)),
  };
}

/**
 * Slack's consent page on the host of its Web API: `https://slack.com/api/` →
 * `https://slack.com/oauth/v2/authorize` (the installer's default), and so for GovSlack or a
 * test Slack: an install started on one Slack must finish on it.
 */
export function consentPageOf(apiUrl: string): string {
  return new URL("/oauth/v2/authorize", apiUrl).toString();
}
