import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/logger.ts";
import { oauthAuthorize } from "../../../src/slack/installs/bolt-authorize.ts";
import {
  EncryptedInstallationStore,
  type InstallRecord,
} from "../../../src/slack/installs/installation-store.ts";
import {
  OAuthTokenSource,
  type Refresh,
  type RefreshAnswer,
} from "../../../src/slack/installs/oauth-token-source.ts";
import { InstallUnavailable } from "../../../src/slack/installs/token-source.ts";
import { openStore, type Store } from "../../../src/store/index.ts";

const HOUR_S = 3600;
const NOW_MS = 1_800_000_000_000;
const NOW_S = NOW_MS / 1000;

let store: Store;
let key: Buffer;
let installs: EncryptedInstallationStore;
let lines: string[];

beforeEach(async () => {
  store = await openStore("memory://");
  key = randomBytes(32);
  installs = new EncryptedInstallationStore({ store, key });
  lines = [];
});
afterEach(() => store.close());

const logger = () =>
  createLogger({
    level: "info",
    destination: new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    }),
  });

/** An install of team T0A whose token expires `expiresInS` from now (none: no rotation). */
async function installed(
  expiresInS?: number,
  team = "T0A",
  scopes = ["chat:write"],
): Promise<InstallRecord> {
  const record: InstallRecord = {
    installation: {
      team: { id: team },
      user: { id: "U0ADMIN" },
      bot: {
        token: `xoxe.xoxb-1-${randomBytes(6).toString("hex")}`,
        ...(expiresInS === undefined
          ? {}
          : {
              refreshToken: `xoxe-1-${randomBytes(6).toString("hex")}`,
              expiresAt: NOW_S + expiresInS,
            }),
        scopes,
        id: "B0BOT",
        userId: "U0BOT",
      },
      isEnterpriseInstall: false,
      authVersion: "v2",
    },
  };
  await installs.write(`T${team}`, record);
  return record;
}

/** Slack's refresh: single-use refresh tokens, a count, and an optional gate to hold it. */
function slackRefresh() {
  const used = new Set<string>();
  const state = {
    calls: 0,
    gate: undefined as Promise<void> | undefined,
    refuse: undefined as string | undefined,
  };
  const refresh: Refresh = async (refreshToken): Promise<RefreshAnswer> => {
    state.calls += 1;
    await state.gate;
    if (state.refuse !== undefined || used.has(refreshToken)) {
      throw Object.assign(new Error("An API error occurred"), {
        code: "slack_webapi_platform_error",
        data: { ok: false, error: state.refuse ?? "invalid_refresh_token" },
      });
    }
    used.add(refreshToken);
    return {
      access_token: `xoxe.xoxb-1-${randomBytes(6).toString("hex")}`,
      refresh_token: `xoxe-1-${randomBytes(6).toString("hex")}`,
      expires_in: 12 * HOUR_S,
    };
  };
  return { refresh, state };
}

const source = (refresh: Refresh) =>
  new OAuthTokenSource({
    installs,
    store,
    refresh,
    logger: logger(),
    now: () => NOW_MS,
    leaseWait: { tries: 200, delayMs: 2 },
  });

describe("OAuthTokenSource", () => {
  it("gives an install's token, and says which installs have none", async () => {
    const record = await installed();
    const { refresh, state } = slackRefresh();
    const tokens = source(refresh);
    expect(await tokens.botToken("TT0A")).toBe(record.installation.bot?.token);
    await expect(tokens.botToken("TT0NONE")).rejects.toMatchObject({
      name: "InstallUnavailable",
      reason: "not_installed",
    });
    // Without rotation, a refused token has no replacement.
    expect(
      await tokens.refused("TT0A", record.installation.bot?.token ?? "", "token_expired"),
    ).toBeUndefined();
    expect(state.calls).toBe(0);
  });

  it("refreshes a token expiring within 2 hours, once, and keeps the new one (encrypted)", async () => {
    const far = await installed(3 * HOUR_S, "T0FAR");
    const near = await installed(HOUR_S, "T0NEAR");
    const { refresh, state } = slackRefresh();
    const tokens = source(refresh);
    expect(await tokens.botToken("TT0FAR")).toBe(far.installation.bot?.token);
    expect(state.calls).toBe(0);
    const fresh = await tokens.botToken("TT0NEAR");
    expect(fresh).not.toBe(near.installation.bot?.token);
    expect(state.calls).toBe(1);
    expect(await tokens.botToken("TT0NEAR")).toBe(fresh);
    const stored = await installs.read("TT0NEAR");
    expect(stored?.installation.bot).toMatchObject({
      token: fresh,
      expiresAt: NOW_S + 12 * HOUR_S,
    });
    expect(stored?.installation.bot?.refreshToken).not.toBe(near.installation.bot?.refreshToken);
    expect(JSON.stringify(await store.get("installs", "TT0NEAR"))).not.toContain(fresh);
    expect(state.calls).toBe(1);
  });

  it("refreshes once across two replicas: the one that waited reads the stored token", async () => {
    const near = await installed(60);
    const { refresh, state } = slackRefresh();
    let open = () => {};
    state.gate = new Promise((resolve) => {
      open = resolve;
    });
    const [a, b] = [source(refresh), source(refresh)];
    const first = a.botToken("TT0A");
    const second = b.botToken("TT0A");
    // Both asked; the refresh is held until both are waiting.
    await expect.poll(() => state.calls).toBe(1);
    open();
    const [ta, tb] = await Promise.all([first, second]);
    expect(ta).toBe(tb);
    expect(ta).not.toBe(near.installation.bot?.token);
    expect(state.calls).toBe(1);
    expect(a.refreshes + b.refreshes).toBe(1);
  });

  it("refreshes once when Slack refuses an expired token, and hands out a newer stored one as it is", async () => {
    const record = await installed(10 * HOUR_S);
    const old = record.installation.bot?.token ?? "";
    const { refresh, state } = slackRefresh();
    const [a, b] = [source(refresh), source(refresh)];
    const fresh = await a.refused("TT0A", old, "token_expired");
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(old);
    expect(state.calls).toBe(1);
    // The other replica, refused the same old token: the stored one, no second refresh.
    expect(await b.refused("TT0A", old, "token_expired")).toBe(fresh);
    expect(state.calls).toBe(1);
  });

  it("marks the install revoked when Slack refuses its refresh token, saying so once", async () => {
    await installed(60);
    const { refresh, state } = slackRefresh();
    state.refuse = "invalid_refresh_token";
    const tokens = source(refresh);
    const error = await tokens.botToken("TT0A").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstallUnavailable);
    expect(error).toMatchObject({ reason: "revoked" });
    await expect(tokens.botToken("TT0A")).rejects.toMatchObject({ reason: "revoked" });
    expect((await installs.read("TT0A"))?.revokedAt).toBe(NOW_MS);
    const said = lines.filter((l) => l.includes("revoked the tokens of installation TT0A"));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0] ?? "{}")).toMatchObject({ level: 50, install: "TT0A" });
    expect(lines.join("")).not.toMatch(/xoxe/);
    expect(state.calls).toBe(1);
  });

  it("marks the install revoked when its token is refused as revoked", async () => {
    const record = await installed();
    const tokens = source(slackRefresh().refresh);
    expect(
      await tokens.refused("TT0A", record.installation.bot?.token ?? "", "token_revoked"),
    ).toBeUndefined();
    await expect(tokens.botToken("TT0A")).rejects.toMatchObject({ reason: "revoked" });
  });

  it("sees an install installed again through another replica at once, revoked as it had cached it", async () => {
    const record = await installed();
    const tokens = source(slackRefresh().refresh);
    await tokens.refused("TT0A", record.installation.bot?.token ?? "", "token_revoked");
    await expect(tokens.botToken("TT0A")).rejects.toMatchObject({ reason: "revoked" });
    // Another replica handled the new install's redirect: this one's cache is not dropped.
    const again = await installed();
    expect(await tokens.botToken("TT0A")).toBe(again.installation.bot?.token);
  });

  it("keeps an install made again while its refresh was in flight: the old grant's answer is not stored", async () => {
    await installed(60);
    const { refresh, state } = slackRefresh();
    let open = () => {};
    state.gate = new Promise((resolve) => {
      open = resolve;
    });
    const tokens = source(refresh);
    const asked = tokens.botToken("TT0A");
    await expect.poll(() => state.calls).toBe(1);
    const again = await installed(12 * HOUR_S, "T0A", ["chat:write", "canvases:write"]);
    open();
    expect(await asked).toBe(again.installation.bot?.token);
    expect(await installs.read("TT0A")).toEqual(again);
    expect(lines.filter((l) => l.includes("installation changed while its token"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("refreshed the bot token"))).toEqual([]);
  });

  it("does not bring back an install removed while its refresh was in flight", async () => {
    await installed(60);
    const { refresh, state } = slackRefresh();
    let open = () => {};
    state.gate = new Promise((resolve) => {
      open = resolve;
    });
    const tokens = source(refresh);
    const asked = tokens.botToken("TT0A").catch((e: unknown) => e);
    await expect.poll(() => state.calls).toBe(1);
    await installs.deleteInstallation("TT0A");
    open();
    expect(await asked).toMatchObject({ name: "InstallUnavailable", reason: "not_installed" });
    expect(await store.get("installs", "TT0A")).toBeUndefined();
  });

  it("does not mark an install made again revoked when the old grant's refresh token is refused", async () => {
    await installed(60);
    const { refresh, state } = slackRefresh();
    state.refuse = "invalid_refresh_token";
    let open = () => {};
    state.gate = new Promise((resolve) => {
      open = resolve;
    });
    const revoked: string[] = [];
    const tokens = new OAuthTokenSource({
      installs,
      store,
      refresh,
      logger: logger(),
      now: () => NOW_MS,
      onRevoked: (install) => revoked.push(install),
    });
    const asked = tokens.botToken("TT0A");
    await expect.poll(() => state.calls).toBe(1);
    const again = await installed(12 * HOUR_S);
    open();
    expect(await asked).toBe(again.installation.bot?.token);
    expect((await installs.read("TT0A"))?.revokedAt).toBeUndefined();
    expect(revoked).toEqual([]);
    expect(lines.filter((l) => l.includes("revoked the tokens"))).toEqual([]);
  });

  it("does not mark an install made again revoked when Slack refuses the old token as revoked", async () => {
    const first = await installed();
    let again: InstallRecord | undefined;
    // The reinstall lands after the refusal was read, right before the install is marked.
    const racing = new Proxy(store, {
      get(target, name, receiver) {
        if (name !== "compareAndSet") {
          const value = Reflect.get(target, name, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (...args: Parameters<Store["compareAndSet"]>) => {
          again ??= await installed();
          return target.compareAndSet(...args);
        };
      },
    });
    const tokens = new OAuthTokenSource({
      installs: new EncryptedInstallationStore({ store: racing, key }),
      store: racing,
      refresh: slackRefresh().refresh,
      logger: logger(),
      now: () => NOW_MS,
    });
    const fresh = await tokens.refused(
      "TT0A",
      first.installation.bot?.token ?? "",
      "token_revoked",
    );
    expect(fresh).toBe(again?.installation.bot?.token);
    expect(await tokens.botToken("TT0A")).toBe(fresh);
    expect((await installs.read("TT0A"))?.revokedAt).toBeUndefined();
  });

  it("sees an install deleted by another replica once its cache is dropped", async () => {
    await installed();
    const tokens = source(slackRefresh().refresh);
    await tokens.botToken("TT0A");
    await installs.deleteInstallation("TT0A");
    tokens.forget("TT0A");
    await expect(tokens.botToken("TT0A")).rejects.toMatchObject({ reason: "not_installed" });
  });
});

describe("oauthAuthorize", () => {
  it("authorises a request with its own install's bot; an org-wide install for any workspace of it", async () => {
    const a = await installed(undefined, "T0A");
    const b = await installed(undefined, "T0B");
    const org: InstallRecord = {
      installation: {
        enterprise: { id: "E0ORG" },
        user: { id: "W0ADMIN" },
        bot: { token: "xoxb-org-token-1234", scopes: [], id: "B0ORG", userId: "W0BOT" },
        isEnterpriseInstall: true,
      },
    };
    await installs.write("EE0ORG", org);
    const authorize = oauthAuthorize(source(slackRefresh().refresh));
    expect(
      await authorize({ teamId: "T0A", enterpriseId: undefined, isEnterpriseInstall: false }),
    ).toEqual({
      botToken: a.installation.bot?.token,
      botId: "B0BOT",
      botUserId: "U0BOT",
      teamId: "T0A",
    });
    expect(
      (await authorize({ teamId: "T0B", enterpriseId: undefined, isEnterpriseInstall: false }))
        .botToken,
    ).toBe(b.installation.bot?.token);
    for (const team of ["T0ONE", "T0TWO"]) {
      expect(
        await authorize({ teamId: team, enterpriseId: "E0ORG", isEnterpriseInstall: true }),
      ).toEqual({
        botToken: "xoxb-org-token-1234",
        botId: "B0ORG",
        botUserId: "W0BOT",
        teamId: team,
        enterpriseId: "E0ORG",
      });
    }
    await expect(
      authorize({ teamId: "T0C", enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toBeInstanceOf(InstallUnavailable);
    // A workspace of the org installed on its own is not the org-wide install.
    await expect(
      authorize({ teamId: "T0ONE", enterpriseId: "E0ORG", isEnterpriseInstall: false }),
    ).rejects.toBeInstanceOf(InstallUnavailable);
  });
});
