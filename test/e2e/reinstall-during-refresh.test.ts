import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Job, tenantOf } from "../../src/jobs/index.ts";
import { installKeyOf } from "../../src/slack/installs/install-key.ts";
import { EncryptedInstallationStore } from "../../src/slack/installs/installation-store.ts";
import { installThroughApp } from "../../support/e2e/oauth-install.ts";
import { type OAuthStack, startOAuthStack } from "../../support/e2e/oauth-stack.ts";
import { eventually } from "../../support/e2e/stack.ts";
import type { AuthorizeInstallInput } from "../../support/fake-slack/create-fake-slack.ts";
import type { FakeCall } from "../../support/fake-slack/fake-slack-types.ts";
import { fileShareMessageEvent } from "../../support/fake-slack/slack-payloads.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/**
 * A workspace installs the app again while the app refreshes its rotating token: the
 * refresh is held in flight at the fake Slack until the reinstall has completed, so the two
 * always meet in the same order. Either the refresh was answered before the reinstall (its
 * answer, for the grant the reinstall replaced, arrives after), or Slack took it only after
 * the reinstall and refused the refresh token the reinstall revoked. Either way the new
 * grant — its token and its scopes — is what the store keeps, the install is not marked
 * revoked, and the job under way ends with its note. On SQLite, and on Redis (a
 * redis-server of the test's own: the app has no key prefix setting).
 */
const ALPHA = "T0ALPHA";
const BETA = "T0BETA";
const channelOf = (team: string) => `C0${team.slice(2)}01`;
const userOf = (team: string) => `U0${team.slice(2)}01`;
const HOLD = 1_000_000;
/** The scope the first install lacks: an older version of the app did not ask for it. */
const ADDED_SCOPE = "canvases:write";

const stores = [
  { name: "SQLite", redis: false },
  { name: "Redis", redis: true },
] as const;

describe.each(stores)("a reinstall while a token refresh is in flight ($name)", ({ redis }) => {
  let server: PrivateRedis | undefined;
  let stack: OAuthStack;

  beforeAll(async () => {
    server = redis ? await startPrivateRedis() : undefined;
    stack = await startOAuthStack({
      manifest: oauthManifest({ settings: { token_rotation_enabled: true } }),
      teams: [
        { id: ALPHA, name: "Alpha" },
        { id: BETA, name: "Beta" },
      ],
      ...(server === undefined ? {} : { storeUrl: server.url }),
      env: { POLL_INITIAL_MS: "10", POLL_MAX_MS: "40" },
    });
    for (const team of [ALPHA, BETA]) {
      const user = { id: userOf(team), name: "p", real_name: "P", locale: "en-US" };
      stack.fake.team(team).addUser(user);
      stack.fake.team(team).addChannel({ id: channelOf(team), name: "sync", members: [user.id] });
    }
  }, 30_000);
  afterAll(async () => {
    await stack?.stop();
    await server?.stop();
  });
  const skip = redis && !HAS_REDIS_SERVER;

  const app = () => {
    const found = stack.replicas[0];
    if (found === undefined) throw new Error("no replica");
    return found;
  };
  const installOf = (team: string) => {
    const found = stack.fake.installations.findLast((i) => !i.uninstalled && i.teamId === team);
    if (found === undefined) throw new Error(`${team} is not installed at the fake`);
    return found;
  };
  /** What the app's store keeps of `team`'s install (decrypted with the app's key). */
  const stored = (team: string) =>
    new EncryptedInstallationStore({
      store: app().app.store,
      key: Buffer.from(stack.env.SLACK_TOKEN_KEY, "base64"),
    }).read(installKeyOf({ teamId: team }));

  /** The first install, by an older version of the app that asked for one scope less. */
  async function installWithoutAddedScope(team: string): Promise<void> {
    const consent = {
      authorizeInstall: (input: AuthorizeInstallInput) => {
        const url = new URL(input.url);
        const scopes = (url.searchParams.get("scope") ?? "").split(",");
        url.searchParams.set("scope", scopes.filter((s) => s !== ADDED_SCOPE).join(","));
        return stack.fake.authorizeInstall({ ...input, url: url.toString() });
      },
    };
    expect((await installThroughApp(app().origin, consent, { team })).status).toBe(200);
    expect(installOf(team).botScopes).not.toContain(ADDED_SCOPE);
  }

  /**
   * Holds the next token refresh (`oauth.v2.access`, `grant_type=refresh_token`) at the fake
   * in `phase`: `arrived` resolves once it is held, `release` lets it go on.
   */
  function holdNextRefresh(phase: "received" | "answered") {
    let arrived!: () => void;
    const held = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    stack.fake.knobs.hold = (call: FakeCall, at) => {
      if (at !== phase || call.method !== "oauth.v2.access") return undefined;
      if (call.args.grant_type !== "refresh_token") return undefined;
      stack.fake.knobs.hold = undefined;
      arrived();
      return released;
    };
    return { arrived: held, release };
  }

  /** Someone of `team` shares a recording; resolves with its job once it has one. */
  async function upload(team: string, name: string): Promise<string> {
    const fake = stack.fake.team(team);
    const file = fake.addFile({ name, bytes: recordingBytes(name), user: userOf(team) });
    const message = fake.shareFile(file, { channel: channelOf(team), user: userOf(team) });
    const event = fileShareMessageEvent(file, {
      channel: channelOf(team),
      user: userOf(team),
      ts: message.ts,
    });
    expect((await stack.sendEvent(app(), team, event)).status).toBe(200);
    const tenant = tenantOf(installKeyOf({ teamId: team }), team);
    const jobs = await eventually(
      () => app().app.jobs.service.listByChannel(tenant, channelOf(team)),
      (list) => list.some((j) => j.source.filename === name),
    );
    return jobs.find((j) => j.source.filename === name)?.id ?? "";
  }
  /** The job once it reaches one of `stages` (a failure ends the wait at once). */
  const settles = (id: string, stages: Job["stage"][]) =>
    eventually(
      () => app().app.jobs.service.get(id),
      (job) => job !== undefined && [...stages, "failed"].includes(job.stage),
      { timeoutMs: 20_000 },
    );

  /**
   * `team` installed without the added scope has a job waiting on the Note Service; its
   * token expires, the job's next Slack call meets that, and the refresh it starts is held
   * in `phase` while `team` installs the app again, with every scope. Then it goes on.
   */
  async function raceReinstallWithRefresh(team: string, phase: "received" | "answered") {
    await installWithoutAddedScope(team);
    stack.emulator.knobs.pollsToComplete = HOLD;
    const id = await upload(team, `${team}-weekly.m4a`);
    expect((await settles(id, ["transcribing"]))?.stage).toBe("transcribing");
    const first = installOf(team);

    const refresh = holdNextRefresh(phase);
    stack.fake.expireToken(first.botToken);
    stack.emulator.knobs.pollsToComplete = 1;
    await refresh.arrived;
    expect((await stack.install({ team })).status).toBe(200);
    const second = installOf(team);
    expect(second).not.toBe(first);
    expect(second.botScopes).toContain(ADDED_SCOPE);
    refresh.release();
    return { id, first, second };
  }

  /** What both races must end in: the new grant kept, the job under way ending with its note. */
  async function expectNewGrantKept(team: string, id: string) {
    const second = installOf(team);
    const naming = await settles(id, ["naming"]);
    expect(naming?.stage).toBe("naming");
    const record = await stored(team);
    expect(record?.revokedAt).toBeUndefined();
    expect(record?.installation.bot?.token).toBe(second.botToken);
    expect(record?.installation.bot?.refreshToken).toBe(second.refreshToken);
    expect(record?.installation.bot?.scopes).toContain(ADDED_SCOPE);

    expect((await app().app.jobs.service.skipNaming(id)).ok).toBe(true);
    expect((await settles(id, ["done"]))?.stage).toBe("done");
    const notes = stack.fake
      .callsTo("chat.postMessage")
      .filter((c) => c.args.channel === channelOf(team))
      .filter((c) => JSON.stringify(c.args).includes("note_part"));
    expect(notes.length).toBeGreaterThan(0);
    for (const note of notes) expect(note.headers.authorization).toBe(`Bearer ${second.botToken}`);
    const revoked = app().logs.filter((l) => l.includes("revoked the tokens of installation"));
    expect(revoked).toEqual([]);
  }

  it.skipIf(skip)(
    "keeps the new grant when the refresh's answer, for the grant it replaced, arrives after the reinstall",
    async () => {
      const { id, first } = await raceReinstallWithRefresh(ALPHA, "answered");
      // Slack did refresh the old grant (its answer is what arrived late).
      expect(first.refreshes).toBe(1);
      await expectNewGrantKept(ALPHA, id);
    },
  );

  it.skipIf(skip)(
    "keeps the new grant, not marked revoked, when Slack refuses the refresh token the reinstall revoked",
    async () => {
      const { id, first } = await raceReinstallWithRefresh(BETA, "received");
      await expectNewGrantKept(BETA, id);
      // The refresh reached Slack after the reinstall, which had revoked its refresh token.
      expect(first.refreshes).toBe(0);
      const refused = stack.fake
        .callsTo("oauth.v2.access")
        .filter((c) => c.args.refresh_token === first.refreshToken);
      expect(refused.map((c) => c.error)).toEqual(["invalid_refresh_token"]);
    },
  );
});
