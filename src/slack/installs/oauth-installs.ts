import { createRequire } from "node:module";
import { WebClient } from "@slack/web-api";
import type { OAuthConfig } from "../../config.ts";
import { type Logger, toSlackLogger } from "../../logger.ts";
import type { Store } from "../../store/index.ts";
import { optional } from "../../util/optional.ts";
import { oauthAuthorize } from "./bolt-authorize.ts";
import { BOT_SCOPES } from "./bot-scopes.ts";
import { installRecords } from "./install-records.ts";
import { installRoutes } from "./install-routes.ts";
import { EncryptedInstallationStore } from "./installation-store.ts";
import { onceStateStore, STATE_COOKIE, STATE_LIFETIME_S } from "./oauth-state.ts";
import { OAuthTokenSource, type RefreshAnswer, refreshAnswerSchema } from "./oauth-token-source.ts";

// CommonJS; loaded only in OAuth mode.
const require = createRequire(import.meta.url);

/** Everything installs by OAuth add to the app. */
export function createOAuthInstalls(o: {
  oauth: OAuthConfig;
  apiUrl: string;
  store: Store;
  logger: Logger;
  onRevoked?: (install: string) => void;
}) {
  const logger = o.logger.child({ name: "installs" });
  const installs = new EncryptedInstallationStore({ store: o.store, key: o.oauth.tokenKey });
  const client = new WebClient(undefined, {
    slackApiUrl: o.apiUrl,
    logger: toSlackLogger(logger),
    retryConfig: { retries: 0 },
  });
  const refresh = async (refreshToken: string): Promise<RefreshAnswer> => {
    const answer = refreshAnswerSchema.safeParse(
      await client.oauth.v2.access({
        client_id: o.oauth.clientId,
        client_secret: o.oauth.clientSecret,
        grant_type: "refresh_token",
        refresh_token: refreshToken,
      }),
    );
    if (!answer.success) {
      throw new Error("oauth.v2.access answered a refresh without a token or its expiry");
    }
    return answer.data;
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
 * The consent page on the Web API's host: an install started on one Slack (GovSlack, a test's) must
 * finish on it.
 */
export function consentPageOf(apiUrl: string): string {
  return new URL("/oauth/v2/authorize", apiUrl).toString();
}
