import { randomBytes } from "node:crypto";
import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { HandedOut } from "./handed-out.ts";
import { SlackApiError } from "./slack-api-error.ts";

/** An Enterprise Grid organisation: its workspaces are stores of the same fake. */
export interface FakeEnterprise {
  id: string;
  name: string;
}

/**
 * One installation of the app: a workspace install (`teamId` set) or an org-wide install of
 * an Enterprise Grid organisation (`teamId` null, `isEnterpriseInstall`), which acts in
 * every workspace of the organisation. Its tokens are the current ones (rotation replaces
 * them); tokens it had before stay in the registry, refused.
 */
export interface FakeInstallation {
  id: string;
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
  botUserId: string;
  botId: string;
  /** Scopes granted to the bot token (what the install asked). */
  botScopes: readonly string[];
  userScopes: readonly string[];
  /** Who installed it (`authed_user.id`). */
  installerUserId: string;
  botToken: string;
  userToken?: string;
  /** With token rotation: the refresh token that is valid now, bot and user. */
  refreshToken?: string;
  userRefreshToken?: string;
  /** `oauth.v2.access` refreshes that succeeded for it. */
  refreshes: number;
  /** Uninstalled: every token refused with `token_revoked`. */
  uninstalled: boolean;
  /**
   * An org-wide install's workspaces it lost access to (`revokeTeamAccess`): its token no
   * longer acts there and their events no longer reach it.
   */
  revokedTeams?: string[];
}

/** What a token is: whose, of which kind, until when. */
export interface TokenRecord {
  token: string;
  installation: FakeInstallation;
  kind: "bot" | "user" | "workflow";
  /** Epoch ms after which it answers `token_expired` (rotating tokens). */
  expiresAt?: number;
  revoked: boolean;
  /** A workflow step's `bot_access_token`: valid while that execution runs. */
  executionId?: string;
  /** The workspace a step's token acts in (the one running the workflow). */
  teamId?: string;
}

/** A refresh token of a rotating installation. */
interface RefreshRecord {
  installation: FakeInstallation;
  kind: "bot" | "user";
  revoked: boolean;
}

/** The rotation knob's default: Slack's access tokens live 12 hours. */
export const DEFAULT_EXPIRES_IN = 43_200;

/**
 * Methods whose target the fake finds in one workspace by an id the call carries: the
 * conversation (`channel`, `channel_id`). Anything else, called with an org-wide token,
 * needs `team_id` ("some API methods will require a team_id to indicate which workspace to
 * act on", https://api.slack.com/enterprise/apps/changes-apis), except `auth.test`.
 */
const CHANNEL_ARGS = ["channel", "channel_id"] as const;

/**
 * The workspaces, the enterprise, the installations and every token the fake issued; the
 * Web API and file downloads ask it who a token is and which workspace's store answers.
 */
export class Tenancy {
  readonly teams = new Map<string, FakeSlackStore>();
  enterprise: FakeEnterprise | undefined;
  readonly installations: FakeInstallation[] = [];
  readonly tokens = new Map<string, TokenRecord>();
  readonly #refresh = new Map<string, RefreshRecord>();
  readonly #now: () => number;
  readonly #handedOut: HandedOut | undefined;

  /** `handedOut`: told of every token issued. */
  constructor(now: () => number, handedOut?: HandedOut) {
    this.#now = now;
    this.#handedOut = handedOut;
  }

  /** Adds a workspace's store; its channels are foreign to every other workspace. */
  addTeam(store: FakeSlackStore): void {
    this.teams.set(store.workspace.teamId, store);
    for (const other of this.teams.values()) {
      other.foreignChannel = (id) =>
        [...this.teams.values()].some((s) => s !== other && s.channels.has(id));
    }
  }

  /** The store of a workspace, or a test error naming it. */
  team(teamId: string): FakeSlackStore {
    const store = this.teams.get(teamId);
    if (store === undefined) throw new Error(`fake Slack: no workspace ${teamId}`);
    return store;
  }

  /** Workspaces an installation acts in: its team, or every workspace of its org. */
  teamsOf(installation: FakeInstallation): FakeSlackStore[] {
    if (!installation.isEnterpriseInstall) {
      const store = installation.teamId === null ? undefined : this.teams.get(installation.teamId);
      return store === undefined ? [] : [store];
    }
    const revoked = installation.revokedTeams ?? [];
    return [...this.teams.values()].filter(
      (s) =>
        s.workspace.enterpriseId === installation.enterpriseId &&
        !revoked.includes(s.workspace.teamId),
    );
  }

  /**
   * The live installation that receives a workspace's events: its own workspace install,
   * else the org-wide install of its organisation.
   */
  installationFor(teamId: string): FakeInstallation | undefined {
    const live = this.installations.filter((i) => !i.uninstalled);
    const own = live.findLast((i) => i.teamId === teamId && !i.isEnterpriseInstall);
    if (own !== undefined) return own;
    const enterpriseId = this.teams.get(teamId)?.workspace.enterpriseId;
    if (enterpriseId === undefined) return undefined;
    return live.findLast(
      (i) =>
        i.isEnterpriseInstall &&
        i.enterpriseId === enterpriseId &&
        !(i.revokedTeams ?? []).includes(teamId),
    );
  }

  /** Records an installation; a reinstall of the same team or org replaces the old one. */
  install(installation: FakeInstallation): FakeInstallation {
    for (const old of this.installations) {
      const same = installation.isEnterpriseInstall
        ? old.isEnterpriseInstall && old.enterpriseId === installation.enterpriseId
        : !old.isEnterpriseInstall && old.teamId === installation.teamId;
      if (same && !old.uninstalled) this.revokeAll(old);
    }
    this.installations.push(installation);
    return installation;
  }

  /** Issues an access token; rotating ones expire `expiresIn` seconds from now. */
  issue(
    installation: FakeInstallation,
    kind: TokenRecord["kind"],
    rotating: { expiresIn: number } | undefined,
    token?: string,
  ): TokenRecord {
    const prefix = kind === "user" ? "xoxp" : "xoxb";
    const secret = randomBytes(12).toString("hex");
    // Rotating access tokens read `xoxe.xoxb-1-…` / `xoxe.xoxp-1-…`
    // (https://docs.slack.dev/authentication/using-token-rotation).
    const value =
      token ?? (rotating === undefined ? `${prefix}-fake-${secret}` : `xoxe.${prefix}-1-${secret}`);
    const record: TokenRecord = {
      token: value,
      installation,
      kind,
      revoked: false,
      ...(rotating === undefined ? {} : { expiresAt: this.#now() + rotating.expiresIn * 1000 }),
    };
    this.tokens.set(value, record);
    this.#handedOut?.add(kind === "workflow" ? "step_token" : "token", value);
    return record;
  }

  /** A fresh refresh token `xoxe-1-…` of a rotating installation. */
  issueRefresh(installation: FakeInstallation, kind: "bot" | "user"): string {
    const value = `xoxe-1-${randomBytes(16).toString("hex")}`;
    this.#refresh.set(value, { installation, kind, revoked: false });
    this.#handedOut?.add("refresh_token", value);
    return value;
  }

  /**
   * Uses a refresh token once: Slack revokes the one used ("The refresh token is then
   * revoked", https://docs.slack.dev/authentication/using-token-rotation); `undefined` for
   * an unknown, used or revoked one (`invalid_refresh_token`).
   */
  useRefresh(value: string): RefreshRecord | undefined {
    const record = this.#refresh.get(value);
    if (record === undefined || record.revoked || record.installation.uninstalled) return undefined;
    record.revoked = true;
    return record;
  }

  /** The test hook: a refresh token refused from now on. */
  revokeRefresh(value: string): void {
    const record = this.#refresh.get(value);
    if (record === undefined) throw new Error("fake Slack: no such refresh token");
    record.revoked = true;
  }

  /** Revokes every token of an installation (an uninstall, or a reinstall replacing it). */
  revokeAll(installation: FakeInstallation): void {
    installation.uninstalled = true;
    for (const record of this.tokens.values()) {
      if (record.installation === installation) record.revoked = true;
    }
    for (const record of this.#refresh.values()) {
      if (record.installation === installation) record.revoked = true;
    }
  }

  /**
   * Who a token is, or the error Slack answers for it: `not_authed` (none), `invalid_auth`
   * (unknown), `token_revoked` (its app was removed), `token_expired` (a rotating token past
   * its `expires_in`, https://docs.slack.dev/authentication/using-token-rotation).
   */
  authenticate(token: string | undefined): TokenRecord | string {
    if (token === undefined || token === "") return "not_authed";
    const record = this.tokens.get(token);
    if (record === undefined) return "invalid_auth";
    if (record.revoked) return record.kind === "workflow" ? "invalid_auth" : "token_revoked";
    if (record.expiresAt !== undefined && this.#now() >= record.expiresAt) return "token_expired";
    return record;
  }

  /**
   * The workspace whose store answers a call made with `record`'s token. A workspace
   * install answers from its team only. An org-wide install finds the workspace by the
   * conversation the call names (channel-scoped methods), or by `team_id`, which it must
   * pass to anything else: `missing_argument` without it, `team_access_not_granted` for a
   * workspace outside the org (https://api.slack.com/enterprise/apps/changes-apis).
   */
  storeFor(record: TokenRecord, method: string, args: Record<string, unknown>): FakeSlackStore {
    const { installation } = record;
    // A step's token acts in the workspace running the workflow.
    if (record.teamId !== undefined) return this.team(record.teamId);
    if (!installation.isEnterpriseInstall) {
      if (installation.teamId === null) throw new SlackApiError("invalid_auth");
      return this.team(installation.teamId);
    }
    const teams = this.teamsOf(installation);
    const [first] = teams;
    if (first === undefined) throw new SlackApiError("team_access_not_granted");
    for (const key of CHANNEL_ARGS) {
      const id = args[key];
      if (typeof id !== "string" || id === "") continue;
      const owner = teams.find((s) => s.channels.has(id));
      if (owner === undefined) throw new SlackApiError("channel_not_found");
      return owner;
    }
    const teamId = args.team_id;
    if (typeof teamId === "string" && teamId !== "") {
      const store = teams.find((s) => s.workspace.teamId === teamId);
      if (store === undefined) throw new SlackApiError("team_access_not_granted");
      return store;
    }
    // auth.test answers for the org as a whole; functions.* find their execution by its id.
    if (method === "auth.test" || method.startsWith("functions.")) return first;
    throw new SlackApiError("missing_argument", "team_id is required with an org-wide token");
  }
}
