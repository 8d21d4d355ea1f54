import { LogLevel, WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createFakeSlack,
  FakeOAuthRefusal,
  type FakeSlack,
} from "../../support/fake-slack/create-fake-slack.ts";
import { LOGIN_PAGE } from "../../support/fake-slack/file-download.ts";
import { readFixture } from "../fixtures/slack-payloads/index.ts";
import { api, authorizeUrl, oauthAccess, oauthManifest, REDIRECT } from "./installs.helpers.ts";

/**
 * Several workspaces and an enterprise, a token per installation, `auth.test` per token, and
 * installs by OAuth v2 — each rule of Slack the fake enforces, its refusals too.
 */
let fake: FakeSlack;
const A = "T0FAKE";
const B = "T0BETA";
const E1 = "T0ORGONE";
const E2 = "T0ORGTWO";

const keysOf = (name: string): string[] =>
  Object.keys(readFixture(name).payload as Record<string, unknown>).sort();

beforeAll(async () => {
  fake = await createFakeSlack({
    manifest: oauthManifest({ settings: { org_deploy_enabled: true }, userScopes: ["users:read"] }),
    teams: [
      { id: B, name: "Beta", domain: "beta", installed: true },
      { id: E1, name: "Org One", enterprise: true },
      { id: E2, name: "Org Two", enterprise: true },
    ],
    enterprise: { id: "E0STARSHIP", name: "Starship" },
  });
  fake.addChannel({ id: "C0ALPHA", name: "alpha" });
  fake.team(B).addChannel({ id: "C0BETA", name: "beta" });
  fake.team(B).addUser({ id: "U0BETAUSER", name: "bea", real_name: "Bea" });
  fake.team(E1).addChannel({ id: "C0ORGONE", name: "one" });
  fake.team(E2).addChannel({ id: "C0ORGTWO", name: "two" });
});
afterAll(() => fake.close());

/** Installs by the consent page and `oauth.v2.access`; the answer. */
async function install(opts: { team?: string; enterprise?: boolean } = {}) {
  const back = new URL(fake.authorizeInstall({ url: authorizeUrl(fake), ...opts }));
  return oauthAccess(fake.apiUrl, {
    client_id: fake.oauth.clientId,
    client_secret: fake.oauth.clientSecret,
    code: back.searchParams.get("code") ?? "",
    redirect_uri: REDIRECT,
  });
}

describe("workspaces", () => {
  it("keeps the default workspace and its bot token as they were", async () => {
    const me = await api(fake.apiUrl, "auth.test", fake.botToken);
    expect(me).toMatchObject({ ok: true, team_id: A, user_id: "U0FAKEBOT", bot_id: "B0FAKEBOT" });
    expect(me.is_enterprise_install).toBe(false);
    expect(me.enterprise_id).toBeUndefined();
    // The published example's fields, plus the bot's and install's (auth.test's page).
    for (const key of keysOf("method-auth.test")) expect(me).toHaveProperty(key);
  });

  it("answers a token from its own workspace only: another team's channel, file, user are not found", async () => {
    const beta = fake.team(B).botToken as string;
    const file = fake.team(B).addFile({ name: "b.mp3", bytes: "beta bytes", channel: "C0BETA" });
    expect(
      await api(fake.apiUrl, "chat.postMessage", fake.botToken, { channel: "C0BETA", text: "x" }),
    ).toMatchObject({ ok: false, error: "channel_not_found" });
    expect(await api(fake.apiUrl, "files.info", fake.botToken, { file: file.id })).toMatchObject({
      ok: false,
      error: "file_not_found",
    });
    expect(
      await api(fake.apiUrl, "users.info", fake.botToken, { user: "U0BETAUSER" }),
    ).toMatchObject({ ok: false, error: "user_not_found" });
    expect(
      await api(fake.apiUrl, "chat.postMessage", beta, { channel: "C0ALPHA", text: "x" }),
    ).toMatchObject({ ok: false, error: "channel_not_found" });
    const posted = await api(fake.apiUrl, "chat.postMessage", beta, {
      channel: "C0BETA",
      text: "hi",
    });
    expect(posted.ok).toBe(true);
    expect(
      fake
        .team(B)
        .messages("C0BETA")
        .map((m) => m.text),
    ).toContain("hi");
    expect(fake.messages("C0BETA")).toEqual([]);
    expect(await api(fake.apiUrl, "auth.test", beta)).toMatchObject({
      team_id: B,
      team: "Beta",
      url: "https://beta.slack.test/",
      user_id: "U0BOTT0BETA",
    });

    // url_private: only with a token of an installation acting in the file's workspace.
    const other = await fetch(file.url_private_download, {
      headers: { authorization: `Bearer ${fake.botToken}` },
    });
    expect(await other.text()).toBe(LOGIN_PAGE);
    const own = await fetch(file.url_private_download, {
      headers: { authorization: `Bearer ${beta}` },
    });
    expect(await own.text()).toBe("beta bytes");
  });
});

describe("OAuth v2", () => {
  it("installs a workspace: redirect with code and state, then the published answer", async () => {
    const back = new URL(
      fake.authorizeInstall({
        url: authorizeUrl(fake),
        team: B,
        userId: "U0BETAUSER",
      }),
    );
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe("st-123");
    // The SDK's own call (form fields) works against the fake.
    const client = new WebClient(undefined, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });
    const answer = (await client.oauth.v2.access({
      client_id: fake.oauth.clientId,
      client_secret: fake.oauth.clientSecret,
      code: back.searchParams.get("code") ?? "",
      redirect_uri: REDIRECT,
    })) as unknown as Record<string, unknown>;
    for (const key of keysOf("method-oauth.v2.access").filter((k) => k !== "authed_user")) {
      expect(answer).toHaveProperty(key);
    }
    expect(answer).toMatchObject({
      token_type: "bot",
      team: { id: B, name: "Beta" },
      enterprise: null,
      is_enterprise_install: false,
      authed_user: { id: "U0BETAUSER" },
      scope: fake.installations[0]?.botScopes.join(","),
    });
    expect(answer.access_token).toMatch(/^xoxb-/);
    expect(answer.expires_in).toBeUndefined();
    // The reinstall replaced the static install of B: its old token is revoked.
    const installs = fake.installations.filter((i) => i.teamId === B);
    expect(installs.map((i) => i.uninstalled)).toEqual([true, false]);
    expect(await api(fake.apiUrl, "auth.test", installs[0]?.botToken)).toMatchObject({
      error: "token_revoked",
    });
    expect(await api(fake.apiUrl, "auth.test", answer.access_token as string)).toMatchObject({
      ok: true,
      team_id: B,
    });
  });

  it("issues a user token only for user scopes the install asked", async () => {
    const url = authorizeUrl(fake, { user_scope: "users:read" });
    const back = new URL(fake.authorizeInstall({ url, team: A, userId: "U0ALICE" }));
    const answer = await oauthAccess(
      fake.apiUrl,
      { code: back.searchParams.get("code") ?? "", redirect_uri: REDIRECT },
      { id: fake.oauth.clientId, secret: fake.oauth.clientSecret },
    );
    expect(answer.authed_user).toMatchObject({
      id: "U0ALICE",
      scope: "users:read",
      token_type: "user",
    });
    const userToken = (answer.authed_user as { access_token: string }).access_token;
    expect(userToken).toMatch(/^xoxp-/);
    expect(await api(fake.apiUrl, "auth.test", userToken)).toMatchObject({
      ok: true,
      user_id: "U0ALICE",
    });
    // A user token has the user scopes only.
    expect(
      await api(fake.apiUrl, "chat.postMessage", userToken, { channel: "C0ALPHA", text: "x" }),
    ).toMatchObject({ error: "missing_scope", needed: "chat:write" });
  });

  it("refuses at the consent page what Slack refuses: another Slack's host, client id, undeclared scope, redirect URL, org install of an app not org-ready", () => {
    const refusal = (url: string, extra: Record<string, unknown> = {}) => {
      try {
        fake.authorizeInstall({ url, ...extra });
      } catch (error) {
        expect(error).toBeInstanceOf(FakeOAuthRefusal);
        return (error as FakeOAuthRefusal).error;
      }
      return "redirected";
    };
    expect(refusal(authorizeUrl(fake, { client_id: "1.2" }))).toBe("invalid_client_id");
    // Another Slack's consent page (slack.com's, when the app's Web API is this one's).
    const elsewhere = authorizeUrl({ ...fake, origin: "https://slack.com" });
    expect(refusal(elsewhere)).toBe("not_found");
    expect(refusal(authorizeUrl(fake, { scope: "chat:write,admin" }))).toBe("invalid_scope");
    expect(refusal(authorizeUrl(fake, { scope: "", user_scope: "" }))).toBe("invalid_scope");
    expect(refusal(authorizeUrl(fake, { user_scope: "chat:write" }))).toBe("invalid_scope");
    expect(refusal(authorizeUrl(fake, { redirect_uri: "https://evil.example/cb" }))).toBe(
      "bad_redirect_uri",
    );
    const declined = new URL(fake.authorizeInstall({ url: authorizeUrl(fake), decline: true }));
    expect(declined.searchParams.get("error")).toBe("access_denied");
    expect(declined.searchParams.get("state")).toBe("st-123");
    expect(declined.searchParams.get("code")).toBeNull();
  });

  it("refuses bad exchanges: client id, secret, code reused or expired, redirect URI, grant type", async () => {
    const code = () =>
      new URL(fake.authorizeInstall({ url: authorizeUrl(fake), team: A })).searchParams.get(
        "code",
      ) ?? "";
    const creds = {
      client_id: fake.oauth.clientId,
      client_secret: fake.oauth.clientSecret,
      redirect_uri: REDIRECT,
    };
    expect(
      await oauthAccess(fake.apiUrl, { ...creds, client_id: "9.9", code: code() }),
    ).toMatchObject({ error: "invalid_client_id" });
    expect(
      await oauthAccess(fake.apiUrl, { ...creds, client_secret: "nope", code: code() }),
    ).toMatchObject({ error: "bad_client_secret" });
    expect(await oauthAccess(fake.apiUrl, { ...creds, code: "made-up" })).toMatchObject({
      error: "invalid_code",
    });
    expect(
      await oauthAccess(fake.apiUrl, { ...creds, grant_type: "password", code: code() }),
    ).toMatchObject({ error: "invalid_grant_type" });
    const once = code();
    expect(
      await oauthAccess(fake.apiUrl, {
        ...creds,
        redirect_uri: "https://notes.example.com/other",
        code: once,
      }),
    ).toMatchObject({ error: "bad_redirect_uri" });
    expect(await oauthAccess(fake.apiUrl, { ...creds, code: once })).toMatchObject({ ok: true });
    expect(await oauthAccess(fake.apiUrl, { ...creds, code: once })).toMatchObject({
      error: "invalid_code",
    });
    const late = code();
    const issued = Date.now();
    fake.knobs.now = () => issued + 10 * 60 * 1000;
    try {
      expect(await oauthAccess(fake.apiUrl, { ...creds, code: late })).toMatchObject({
        error: "invalid_code",
      });
    } finally {
      fake.knobs.now = undefined;
    }
    expect(
      await oauthAccess(fake.apiUrl, {
        ...creds,
        grant_type: "refresh_token",
        refresh_token: "xoxe-1-nope",
      }),
    ).toMatchObject({ error: "invalid_refresh_token" });
  });
});

describe("an enterprise and an org-wide install", () => {
  it("answers in the published org-wide shape and acts in every workspace of the org", async () => {
    const answer = await install({ enterprise: true });
    for (const key of keysOf("method-oauth.v2.access-org-wide")) expect(answer).toHaveProperty(key);
    expect(answer).toMatchObject({
      team: null,
      enterprise: { id: "E0STARSHIP", name: "Starship" },
      is_enterprise_install: true,
      bot_user_id: "W0FAKEBOT",
    });
    const token = answer.access_token as string;
    for (const [channel, team] of [
      ["C0ORGONE", E1],
      ["C0ORGTWO", E2],
    ] as const) {
      expect(
        await api(fake.apiUrl, "chat.postMessage", token, { channel, text: `to ${team}` }),
      ).toMatchObject({ ok: true });
      expect(
        fake
          .team(team)
          .messages(channel)
          .map((m) => m.text),
      ).toEqual([`to ${team}`]);
    }
    // Outside the org: not found, whatever the workspace.
    expect(
      await api(fake.apiUrl, "chat.postMessage", token, { channel: "C0ALPHA", text: "x" }),
    ).toMatchObject({ error: "channel_not_found" });
    // Methods that name no conversation need team_id with an org token.
    expect(
      await api(fake.apiUrl, "files.getUploadURLExternal", token, { filename: "a.txt", length: 3 }),
    ).toMatchObject({ error: "missing_argument" });
    expect(
      await api(fake.apiUrl, "files.getUploadURLExternal", token, {
        filename: "a.txt",
        length: 3,
        team_id: E2,
      }),
    ).toMatchObject({ ok: true });
    expect(
      await api(fake.apiUrl, "files.getUploadURLExternal", token, {
        filename: "a.txt",
        length: 3,
        team_id: B,
      }),
    ).toMatchObject({ error: "team_access_not_granted" });
    const me = await api(fake.apiUrl, "auth.test", token);
    expect(me).toMatchObject({
      ok: true,
      is_enterprise_install: true,
      team_id: "E0STARSHIP",
      user_id: "W0FAKEBOT",
    });
    expect(await api(fake.apiUrl, "auth.test", token, { team_id: E1 })).toMatchObject({
      team_id: E1,
      enterprise_id: "E0STARSHIP",
    });
    // A file of the org is downloaded with the org token; not with another team's.
    const file = fake.team(E2).addFile({ name: "o.mp3", bytes: "org bytes" });
    const got = await fetch(file.url_private_download, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await got.text()).toBe("org bytes");
    const denied = await fetch(file.url_private_download, {
      headers: { authorization: `Bearer ${fake.botToken}` },
    });
    expect(await denied.text()).toBe(LOGIN_PAGE);
  });

  it("refuses an org-wide install of an app whose manifest is not org-ready", async () => {
    const plain = await createFakeSlack({
      // Not org-ready, so without the Workflow step (Slack takes none from such an app).
      manifest: oauthManifest({ settings: { org_deploy_enabled: false }, step: false }),
      enterprise: { id: "E0X", name: "X" },
    });
    try {
      expect(() => plain.authorizeInstall({ url: authorizeUrl(plain), enterprise: true })).toThrow(
        /org_deploy_disabled/,
      );
    } finally {
      await plain.close();
    }
  });
});
