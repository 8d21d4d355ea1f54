import { randomBytes, randomUUID } from "node:crypto";
import type { Installation } from "@slack/oauth";
import { afterAll, describe, expect, it } from "vitest";
import {
  EncryptedInstallationStore,
  InstallationUnreadable,
  installationSchema,
} from "../../../src/slack/installs/installation-store.ts";
import { InstallUnavailable } from "../../../src/slack/installs/token-source.ts";
import { openStore, type Store } from "../../../src/store/index.ts";
import { deleteRedisKeys, redisEntries } from "../../../support/helpers/redis-entries.ts";
import { HAS_REDIS, redisUrl } from "../../../support/helpers/redis-url.ts";
import { occurrencesInStoreFiles, total } from "../../../support/helpers/store-file-text.ts";
import { makeTempDir } from "../../../support/helpers/temp-files.ts";

const KEY = randomBytes(32);

/** A workspace install as `@slack/oauth` builds it from `oauth.v2.access`, rotating. */
function workspaceInstall(team = "T0ALPHA"): Installation<"v2", false> {
  return {
    team: { id: team, name: "Alpha" },
    enterprise: undefined,
    user: { id: "U0ADMIN", token: undefined, scopes: undefined },
    bot: {
      token: `xoxe.xoxb-1-${randomBytes(12).toString("hex")}`,
      refreshToken: `xoxe-1-${randomBytes(16).toString("hex")}`,
      expiresAt: 1_900_000_000,
      scopes: ["chat:write", "files:read"],
      id: "B0BOT",
      userId: "U0BOT",
    },
    tokenType: "bot",
    isEnterpriseInstall: false,
    appId: "A0APP",
    authVersion: "v2",
  };
}

function orgInstall(): Installation<"v2", true> {
  return {
    team: undefined,
    enterprise: { id: "E0ORG", name: "Org" },
    user: { id: "W0ADMIN", token: undefined, scopes: undefined },
    bot: {
      token: `xoxb-${randomBytes(12).toString("hex")}`,
      scopes: ["chat:write"],
      id: "B0ORGBOT",
      userId: "W0BOT",
    },
    tokenType: "bot",
    isEnterpriseInstall: true,
    appId: "A0APP",
    enterpriseUrl: "https://org.enterprise.slack.com/",
    authVersion: "v2",
  };
}

describe("EncryptedInstallationStore", () => {
  const opened: Store[] = [];
  afterAll(async () => {
    for (const store of opened) await store.close();
  });
  const memory = async () => {
    const store = await openStore("memory://");
    opened.push(store);
    return store;
  };

  it("keeps a workspace install under T<team>, an org-wide one under E<enterprise>, and reads them back", async () => {
    const store = await memory();
    const installs = new EncryptedInstallationStore({ store, key: KEY });
    const team = workspaceInstall();
    const org = orgInstall();
    await installs.storeInstallation(team);
    await installs.storeInstallation(org);
    expect(await store.listKeys("installs", "")).toEqual(
      expect.arrayContaining(["TT0ALPHA", "EE0ORG"]),
    );
    expect(
      await installs.fetchInstallation({
        teamId: "T0ALPHA",
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      }),
    ).toEqual(team);
    // Any workspace of the org finds the org-wide install.
    expect(
      await installs.fetchInstallation({
        teamId: "T0ANY",
        enterpriseId: "E0ORG",
        isEnterpriseInstall: true,
      }),
    ).toEqual(org);
    await expect(
      installs.fetchInstallation({
        teamId: "T0OTHER",
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      }),
    ).rejects.toBeInstanceOf(InstallUnavailable);
  });

  it("writes a fresh IV each time: the same install stored twice differs", async () => {
    const store = await memory();
    const installs = new EncryptedInstallationStore({ store, key: KEY });
    const team = workspaceInstall();
    await installs.storeInstallation(team);
    const first = await store.get<{ iv: string; data: string }>("installs", "TT0ALPHA");
    await installs.storeInstallation(team);
    const second = await store.get<{ iv: string; data: string }>("installs", "TT0ALPHA");
    expect(second?.iv).not.toBe(first?.iv);
    expect(second?.data).not.toBe(first?.data);
  });

  it("replaces a record only while the value it was read from is stored: not over the same install made again", async () => {
    const store = await memory();
    const installs = new EncryptedInstallationStore({ store, key: KEY });
    await installs.storeInstallation(workspaceInstall());
    const read = await installs.snapshot("TT0ALPHA");
    if (read === undefined) throw new Error("not stored");
    // The same install made again, equal to the byte but sealed anew: a different value.
    await installs.storeInstallation(read.record.installation as Installation<"v2", false>);
    const revoked = { ...read.record, revokedAt: 1 };
    expect(await installs.replace("TT0ALPHA", read, revoked)).toBeUndefined();
    expect((await installs.read("TT0ALPHA"))?.revokedAt).toBeUndefined();

    const now = await installs.snapshot("TT0ALPHA");
    if (now === undefined) throw new Error("not stored");
    const written = await installs.replace("TT0ALPHA", now, revoked);
    expect(written?.record).toEqual(revoked);
    expect(await installs.read("TT0ALPHA")).toEqual(revoked);
    // What it wrote is what a later replace compares with.
    if (written === undefined) throw new Error("not written");
    expect(await installs.replace("TT0ALPHA", written, now.record)).toBeDefined();
  });

  it("refuses a tampered value, one moved to another install's key, and the wrong key", async () => {
    const store = await memory();
    const installs = new EncryptedInstallationStore({ store, key: KEY });
    await installs.storeInstallation(workspaceInstall("T0ALPHA"));
    const sealed = (await store.get<Record<string, string>>("installs", "TT0ALPHA")) ?? {};

    // One bit of the ciphertext flipped.
    const data = Buffer.from(sealed.data ?? "", "base64");
    data[5] = (data[5] ?? 0) ^ 1;
    await store.set("installs", "TT0TAMPER", sealed);
    await store.set("installs", "TT0ALPHA", { ...sealed, data: data.toString("base64") });
    await expect(installs.read("TT0ALPHA")).rejects.toBeInstanceOf(InstallationUnreadable);
    // Alpha's whole record copied under Beta's key: it does not answer for Beta.
    await expect(installs.read("TT0TAMPER")).rejects.toBeInstanceOf(InstallationUnreadable);
    // A tag cut short is not taken either.
    await store.set("installs", "TT0ALPHA", {
      ...sealed,
      tag: Buffer.from(sealed.tag ?? "", "base64")
        .subarray(0, 4)
        .toString("base64"),
    });
    await expect(installs.read("TT0ALPHA")).rejects.toBeInstanceOf(InstallationUnreadable);

    await store.set("installs", "TT0ALPHA", sealed);
    expect((await installs.read("TT0ALPHA"))?.installation.team?.id).toBe("T0ALPHA");
    const wrongKey = new EncryptedInstallationStore({ store, key: randomBytes(32) });
    const error = await wrongKey.read("TT0ALPHA").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstallationUnreadable);
    expect((error as Error).message).toMatch(/SLACK_TOKEN_KEY is not the key it was written with/);
    // A value that is not ours at all.
    await store.set("installs", "TT0JUNK", { hello: "world" });
    await expect(installs.read("TT0JUNK")).rejects.toBeInstanceOf(InstallationUnreadable);
  });

  it("deletes exactly one install, by its install key or by @slack/oauth's query", async () => {
    const store = await memory();
    const installs = new EncryptedInstallationStore({ store, key: KEY });
    await installs.storeInstallation(workspaceInstall("T0ALPHA"));
    await installs.storeInstallation(workspaceInstall("T0BETA"));
    await installs.storeInstallation(orgInstall());
    await installs.deleteInstallation("TT0ALPHA");
    await installs.deleteInstallation({
      teamId: undefined,
      enterpriseId: "E0ORG",
      isEnterpriseInstall: true,
    });
    expect(await store.listKeys("installs", "")).toEqual(["TT0BETA"]);
    expect(await installs.read("TT0ALPHA")).toBeUndefined();
  });

  it("says a revoked install is revoked, not missing", async () => {
    const store = await memory();
    const installs = new EncryptedInstallationStore({ store, key: KEY });
    const team = workspaceInstall();
    await installs.write("TT0ALPHA", {
      installation: installationSchema.parse(team),
      revokedAt: 1,
    });
    const error = await installs
      .fetchInstallation({ teamId: "T0ALPHA", enterpriseId: undefined, isEnterpriseInstall: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "InstallUnavailable", reason: "revoked" });
  });

  it("leaves no token, refresh token or name readable in the SQLite files", async () => {
    const temp = await makeTempDir("mn-installs-");
    try {
      const path = `${temp.dir}/installs.sqlite`;
      const store = await openStore(`sqlite://${path}`);
      const installs = new EncryptedInstallationStore({ store, key: KEY });
      const team = workspaceInstall();
      await installs.storeInstallation(team);
      expect((await installs.read("TT0ALPHA"))?.installation.bot?.token).toBe(team.bot?.token);
      await store.close();
      // Whole values only: a short marker such as "xox" turns up by chance in
      // base64 ciphertext about once in 500 runs.
      const secrets = [team.bot?.token ?? "", team.bot?.refreshToken ?? "", "Alpha"];
      const found = await occurrencesInStoreFiles(path, secrets);
      expect(Object.keys(found).length).toBeGreaterThan(0);
      expect(total(found)).toBe(0);
    } finally {
      await temp.cleanup();
    }
  });

  describe.skipIf(!HAS_REDIS)("on Redis", () => {
    it("leaves no token readable in the Redis value", async () => {
      const prefix = `mn-installs-${randomUUID()}`;
      const store = await openStore(redisUrl(), { keyPrefix: prefix });
      try {
        const installs = new EncryptedInstallationStore({ store, key: KEY });
        const team = workspaceInstall();
        await installs.storeInstallation(team);
        expect((await installs.read("TT0ALPHA"))?.installation.bot?.token).toBe(team.bot?.token);
        const entries = await redisEntries(redisUrl(), `${prefix}*`);
        expect(entries.some((e) => e.includes("TT0ALPHA"))).toBe(true);
        // Whole values only: a short marker such as "xox" turns up by chance in
        // base64 ciphertext about once in 500 runs.
        for (const secret of [team.bot?.token ?? "", team.bot?.refreshToken ?? "", "Alpha"]) {
          expect(entries.join("\n")).not.toContain(secret);
        }
      } finally {
        await deleteRedisKeys(redisUrl(), `${prefix}*`);
        await store.close();
      }
    });
  });
});
