import { randomBytes } from "node:crypto";
import type { InstalledApp } from "./app-manifest.ts";
import type { HandedOut } from "./handed-out.ts";
import type { ClientMethod } from "./handle-api-request.ts";
import type { FakeInstallation, Tenancy } from "./installations.ts";
import { SlackApiError } from "./slack-api-error.ts";

/** The app's OAuth credentials, as its settings page shows them. */
export interface FakeOAuthClient {
  clientId: string;
  clientSecret: string;
}

/** What the person at Slack's consent page does (see {@link FakeOAuth.authorizeInstall}). */
export interface AuthorizeInstallInput {
  /** The authorize URL the app redirected the browser to (`…/oauth/v2/authorize?…`). */
  url: string;
  /** The workspace installing it; default the `team` of the URL, else the first workspace. */
  team?: string;
  /** An org-wide install of the enterprise (an org admin installing for every workspace). */
  enterprise?: boolean;
  /** Who installs it (`authed_user.id`); default `U0FAKEUSER`. */
  userId?: string;
  /** The person clicks Cancel: the redirect carries `error=access_denied`. */
  decline?: boolean;
}

/** Slack's error page instead of a redirect: the authorize URL itself is wrong. */
export class FakeOAuthRefusal extends Error {
  readonly error: string;
  constructor(error: string, detail: string) {
    super(`fake Slack: Slack shows an error page (${error}): ${detail}`);
    this.name = "FakeOAuthRefusal";
    this.error = error;
  }
}

/** A code the consent step issued, waiting for `oauth.v2.access`. */
interface PendingCode {
  teamId: string | null;
  isEnterpriseInstall: boolean;
  userId: string;
  botScopes: string[];
  userScopes: string[];
  /** The `redirect_uri` of the authorize URL, if it had one. */
  redirectUri: string | undefined;
  issuedAt: number;
  used: boolean;
}

/** "Authorization codes … expire after ten minutes" (installing-with-oauth). */
const CODE_LIFETIME_MS = 10 * 60 * 1000;

/** Identities of the bot user an install creates, per workspace or organisation. */
export interface BotIdentity {
  botUserId: string;
  botId: string;
}

/**
 * Slack's OAuth v2 for this app (https://docs.slack.dev/authentication/installing-with-oauth):
 * the consent step a test plays with {@link FakeOAuth.authorizeInstall}, and
 * `oauth.v2.access`, which exchanges its code — or, with token rotation, a refresh token —
 * for tokens (https://docs.slack.dev/reference/methods/oauth.v2.access).
 */
export class FakeOAuth {
  readonly client: FakeOAuthClient;
  readonly #codes = new Map<string, PendingCode>();
  readonly #tenancy: Tenancy;
  readonly #installed: InstalledApp;
  readonly #appId: string;
  readonly #now: () => number;
  readonly #expiresIn: () => number;
  readonly #botOf: (teamId: string | null) => BotIdentity;
  readonly #origins: readonly string[];
  readonly #handedOut: HandedOut | undefined;

  constructor(options: {
    client: FakeOAuthClient;
    /** Where this Slack serves its pages and Web API (the fake's origin, and a proxy's). */
    origins: readonly string[];
    tenancy: Tenancy;
    installed: InstalledApp;
    appId: string;
    now: () => number;
    /** Seconds a rotating access token lives (the `tokenExpiresIn` knob, else 43,200). */
    expiresIn: () => number;
    /** The bot user of an install in a workspace, or (null) org-wide. */
    botOf: (teamId: string | null) => BotIdentity;
    /** Told of each code issued and each state the app sent along. */
    handedOut?: HandedOut;
  }) {
    this.client = options.client;
    this.#tenancy = options.tenancy;
    this.#installed = options.installed;
    this.#appId = options.appId;
    this.#now = options.now;
    this.#expiresIn = options.expiresIn;
    this.#botOf = options.botOf;
    this.#origins = options.origins;
    this.#handedOut = options.handedOut;
  }

  /**
   * The consent page: checks the authorize URL as Slack does before showing it — it is on
   * this Slack's own host, the one of its Web API (`https://slack.com/oauth/v2/authorize`
   * beside `https://slack.com/api/`; another Slack, such as GovSlack's `slack-gov.com`, has
   * its own and knows nothing of this app: a consent link to another host never comes
   * back here), the `client_id` is the app's, every scope (`scope`, `user_scope`, comma-separated) is one
   * the manifest declares, the `redirect_uri` (when given) is one of the manifest's
   * `redirect_urls`, an org-wide install needs `org_deploy_enabled` and an enterprise — and
   * throws {@link FakeOAuthRefusal} for what Slack would answer with an error page. Then
   * returns where the browser goes: the redirect URL with `code` and `state`, or with
   * `error=access_denied` when the person declines.
   */
  authorizeInstall(input: AuthorizeInstallInput): string {
    const url = new URL(input.url);
    if (!this.#origins.includes(url.origin)) {
      throw new FakeOAuthRefusal("not_found", `${url.origin} is not this Slack`);
    }
    if (url.pathname !== "/oauth/v2/authorize") {
      throw new FakeOAuthRefusal("not_found", `${url.pathname} is not /oauth/v2/authorize`);
    }
    const q = url.searchParams;
    if (q.get("client_id") !== this.client.clientId) {
      throw new FakeOAuthRefusal("invalid_client_id", `unknown client_id ${q.get("client_id")}`);
    }
    const botScopes = scopeList(q.get("scope"));
    const userScopes = scopeList(q.get("user_scope"));
    if (botScopes.length + userScopes.length === 0) {
      throw new FakeOAuthRefusal("invalid_scope", "neither scope nor user_scope asked");
    }
    const undeclared = [
      ...botScopes.filter((s) => !this.#installed.botScopes.includes(s)),
      ...userScopes.filter((s) => !this.#installed.userScopes.includes(s)),
    ];
    if (undeclared.length > 0) {
      throw new FakeOAuthRefusal(
        "invalid_scope",
        `${undeclared.join(",")} not among the scopes the app's manifest declares`,
      );
    }
    const asked = q.get("redirect_uri") ?? undefined;
    const redirect = asked ?? this.#installed.redirectUrls[0];
    if (redirect === undefined || !this.#installed.redirectUrls.includes(redirect)) {
      throw new FakeOAuthRefusal(
        "bad_redirect_uri",
        `${redirect ?? "no redirect_uri"} is not one of the app's redirect URLs`,
      );
    }
    let teamId: string | null;
    if (input.enterprise === true) {
      if (!this.#installed.orgDeployEnabled) {
        throw new FakeOAuthRefusal("org_deploy_disabled", "the app is not org-ready");
      }
      if (this.#tenancy.enterprise === undefined) {
        throw new Error("fake Slack: an org-wide install needs an enterprise (option)");
      }
      teamId = null;
    } else {
      teamId = input.team ?? q.get("team") ?? [...this.#tenancy.teams.keys()][0] ?? null;
      if (teamId === null || !this.#tenancy.teams.has(teamId)) {
        throw new Error(`fake Slack: no workspace ${teamId} to install into`);
      }
    }
    const back = new URL(redirect);
    const state = q.get("state");
    this.#handedOut?.add("oauth_state", state);
    if (input.decline === true) {
      back.searchParams.set("error", "access_denied");
    } else {
      const code = `${Date.now()}.${randomBytes(6).readUIntBE(0, 6)}.${randomBytes(32).toString("hex")}`;
      this.#codes.set(code, {
        teamId,
        isEnterpriseInstall: input.enterprise === true,
        userId: input.userId ?? "U0FAKEUSER",
        botScopes,
        userScopes,
        redirectUri: asked,
        issuedAt: this.#now(),
        used: false,
      });
      back.searchParams.set("code", code);
      this.#handedOut?.add("oauth_code", code);
    }
    if (state !== null) back.searchParams.set("state", state);
    return back.toString();
  }

  /**
   * `oauth.v2.access`: client credentials by HTTP Basic auth (as the method's page prefers)
   * or `client_id`/`client_secret` fields; `grant_type` `authorization_code` (the default)
   * or `refresh_token`. Errors from its page: `invalid_client_id`, `bad_client_secret`,
   * `invalid_code` (unknown, used, or older than ten minutes), `bad_redirect_uri` ("must
   * match the originally submitted URI (if one was sent)"), `invalid_grant_type`,
   * `invalid_refresh_token`.
   */
  readonly access: ClientMethod = (args, headers) => {
    const credentials = clientCredentials(args, headers.authorization);
    if (credentials.id !== this.client.clientId) throw new SlackApiError("invalid_client_id");
    if (credentials.secret !== this.client.clientSecret) {
      throw new SlackApiError("bad_client_secret");
    }
    const grant = typeof args.grant_type === "string" ? args.grant_type : "authorization_code";
    if (grant === "refresh_token") return this.#refresh(args);
    if (grant !== "authorization_code") throw new SlackApiError("invalid_grant_type");
    const code = typeof args.code === "string" ? args.code : "";
    const pending = this.#codes.get(code);
    if (
      pending === undefined ||
      pending.used ||
      this.#now() - pending.issuedAt >= CODE_LIFETIME_MS
    ) {
      throw new SlackApiError("invalid_code");
    }
    const redirectUri = typeof args.redirect_uri === "string" ? args.redirect_uri : undefined;
    if (pending.redirectUri !== undefined && redirectUri !== pending.redirectUri) {
      throw new SlackApiError("bad_redirect_uri");
    }
    pending.used = true;
    return this.#install(pending);
  };

  #install(pending: PendingCode): Record<string, unknown> {
    const enterprise = this.#tenancy.enterprise;
    const enterpriseId = pending.isEnterpriseInstall
      ? (enterprise?.id ?? null)
      : ((pending.teamId === null
          ? undefined
          : this.#tenancy.teams.get(pending.teamId)?.workspace.enterpriseId) ?? null);
    const bot = this.#botOf(pending.teamId);
    const installation = this.#tenancy.install({
      id: `I${randomBytes(5).toString("hex").toUpperCase()}`,
      teamId: pending.teamId,
      enterpriseId,
      isEnterpriseInstall: pending.isEnterpriseInstall,
      botUserId: bot.botUserId,
      botId: bot.botId,
      botScopes: pending.botScopes,
      userScopes: pending.userScopes,
      installerUserId: pending.userId,
      botToken: "",
      refreshes: 0,
      uninstalled: false,
    });
    for (const store of this.#tenancy.teamsOf(installation)) {
      if (!store.users.has(bot.botUserId)) {
        store.addUser({
          id: bot.botUserId,
          name: "meeting-notes",
          real_name: "Meeting Notes",
          is_bot: true,
        });
      }
    }
    const rotating = this.#rotating();
    const tokens = this.#issueTokens(installation, rotating);
    const team =
      installation.teamId === null
        ? null
        : {
            id: installation.teamId,
            name: this.#tenancy.team(installation.teamId).workspace.teamName ?? "Fake Workspace",
          };
    const enterpriseObject =
      enterpriseId === null || enterprise === undefined
        ? null
        : { id: enterprise.id, name: enterprise.name };
    // The workspace example of oauth.v2.access and the org-wide one of the enterprise
    // reference (test/fixtures/slack-payloads/method-oauth.v2.access*.json); `expires_in`
    // and `refresh_token` with rotation (using-token-rotation).
    return {
      ...(tokens.bot === undefined ? {} : { access_token: tokens.bot.token, token_type: "bot" }),
      scope: installation.botScopes.join(","),
      ...(tokens.bot === undefined ? {} : { bot_user_id: installation.botUserId }),
      app_id: this.#appId,
      team,
      enterprise: enterpriseObject,
      is_enterprise_install: installation.isEnterpriseInstall,
      ...rotationFields(tokens.bot),
      authed_user: {
        id: installation.installerUserId,
        ...(tokens.user === undefined
          ? {}
          : {
              scope: installation.userScopes.join(","),
              access_token: tokens.user.token,
              token_type: "user",
              ...rotationFields(tokens.user),
            }),
      },
    };
  }

  /** Tokens for a new installation, or after a refresh: bot when it has bot scopes, user likewise. */
  #issueTokens(
    installation: FakeInstallation,
    rotating: { expiresIn: number } | undefined,
    only?: "bot" | "user",
  ): { bot?: IssuedToken; user?: IssuedToken } {
    const out: { bot?: IssuedToken; user?: IssuedToken } = {};
    if (installation.botScopes.length > 0 && only !== "user") {
      const record = this.#tenancy.issue(installation, "bot", rotating);
      installation.botToken = record.token;
      out.bot = { token: record.token };
      if (rotating !== undefined) {
        installation.refreshToken = this.#tenancy.issueRefresh(installation, "bot");
        out.bot = {
          ...out.bot,
          expiresIn: rotating.expiresIn,
          refreshToken: installation.refreshToken,
        };
      }
    }
    if (installation.userScopes.length > 0 && only !== "bot") {
      const record = this.#tenancy.issue(installation, "user", rotating);
      installation.userToken = record.token;
      out.user = { token: record.token };
      if (rotating !== undefined) {
        installation.userRefreshToken = this.#tenancy.issueRefresh(installation, "user");
        out.user = {
          ...out.user,
          expiresIn: rotating.expiresIn,
          refreshToken: installation.userRefreshToken,
        };
      }
    }
    return out;
  }

  #rotating(): { expiresIn: number } | undefined {
    return this.#installed.tokenRotationEnabled ? { expiresIn: this.#expiresIn() } : undefined;
  }

  /**
   * `grant_type=refresh_token`: a new access token and a new refresh token; the refresh
   * token used is revoked, so using it again is `invalid_refresh_token`
   * (https://docs.slack.dev/authentication/using-token-rotation). The old access token keeps
   * working until it expires.
   */
  #refresh(args: Record<string, unknown>): Record<string, unknown> {
    const value = typeof args.refresh_token === "string" ? args.refresh_token : "";
    const rotating = this.#rotating();
    const used = rotating === undefined ? undefined : this.#tenancy.useRefresh(value);
    if (used === undefined || rotating === undefined) {
      throw new SlackApiError("invalid_refresh_token");
    }
    const { installation, kind } = used;
    installation.refreshes += 1;
    const issued = this.#issueTokens(installation, rotating, kind)[kind];
    if (issued === undefined) throw new SlackApiError("invalid_refresh_token");
    const enterprise = this.#tenancy.enterprise;
    return {
      app_id: this.#appId,
      ...(kind === "bot"
        ? { bot_user_id: installation.botUserId }
        : { user_id: installation.installerUserId }),
      scope: (kind === "bot" ? installation.botScopes : installation.userScopes).join(","),
      token_type: kind,
      access_token: issued.token,
      ...rotationFields(issued),
      team:
        installation.teamId === null
          ? null
          : {
              id: installation.teamId,
              name: this.#tenancy.team(installation.teamId).workspace.teamName ?? "Fake Workspace",
            },
      enterprise:
        installation.enterpriseId === null || enterprise === undefined
          ? null
          : { id: enterprise.id, name: enterprise.name },
      is_enterprise_install: installation.isEnterpriseInstall,
    };
  }
}

interface IssuedToken {
  token: string;
  expiresIn?: number;
  refreshToken?: string;
}

function rotationFields(token: IssuedToken | undefined): Record<string, unknown> {
  if (token?.refreshToken === undefined) return {};
  return { expires_in: token.expiresIn, refresh_token: token.refreshToken };
}

function scopeList(value: string | null): string[] {
  return (value ?? "")
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Client id and secret from `Authorization: Basic …`, else from the form fields. */
function clientCredentials(
  args: Record<string, unknown>,
  authorization: string | undefined,
): { id: string | undefined; secret: string | undefined } {
  const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (basic !== undefined) {
    const text = Buffer.from(basic, "base64").toString("utf8");
    const colon = text.indexOf(":");
    if (colon >= 0) {
      return {
        id: decodeURIComponent(text.slice(0, colon)),
        secret: decodeURIComponent(text.slice(colon + 1)),
      };
    }
  }
  return {
    id: typeof args.client_id === "string" ? args.client_id : undefined,
    secret: typeof args.client_secret === "string" ? args.client_secret : undefined,
  };
}
