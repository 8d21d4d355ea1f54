import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Job, tenantOf } from "../../src/jobs/index.ts";
import { installKeyOf } from "../../src/slack/installs/install-key.ts";
import { type OAuthStack, startOAuthStack } from "../../support/e2e/oauth-stack.ts";
import { eventually } from "../../support/e2e/stack.ts";
import {
  appHomeOpenedEvent,
  fileShareMessageEvent,
} from "../../support/fake-slack/slack-payloads.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/**
 * Token rotation while jobs run, on two replicas over one Redis. A token that expires while
 * its job waits on the Note Service is refreshed once, and the job ends with its note. A
 * refresh token Slack refuses stops that install's jobs, each with one sentence, said once
 * in the log; App Home shows the sentence once the app is installed again (before, the
 * install has no token to publish it with). Another install's job is untouched.
 */
const ALPHA = "T0ALPHA";
const BETA = "T0BETA";
const GAMMA = "T0GAMMA";
const DELTA = "T0DELTA";
const channelOf = (team: string) => `C0${team.slice(2)}01`;
const userOf = (team: string) => `U0${team.slice(2)}01`;
const HOLD = 1_000_000;

describe.skipIf(!HAS_REDIS_SERVER)("token rotation while jobs run, on two replicas", () => {
  let redis: PrivateRedis;
  let stack: OAuthStack;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startOAuthStack({
      manifest: oauthManifest({ settings: { token_rotation_enabled: true } }),
      teams: [
        { id: ALPHA, name: "Alpha" },
        { id: BETA, name: "Beta" },
        { id: GAMMA, name: "Gamma" },
        { id: DELTA, name: "Delta" },
      ],
      replicas: 2,
      storeUrl: redis.url,
      env: { POLL_INITIAL_MS: "10", POLL_MAX_MS: "40" },
    });
    for (const team of [ALPHA, BETA, GAMMA, DELTA]) {
      const user = { id: userOf(team), name: "p", real_name: "P", locale: "en-US" };
      stack.fake.team(team).addUser(user);
      stack.fake.team(team).addChannel({ id: channelOf(team), name: "sync", members: [user.id] });
      expect((await stack.install({ team })).status).toBe(200);
    }
  }, 30_000);
  afterAll(async () => {
    await stack?.stop();
    await redis?.stop();
  });

  const replica = (i: number) => {
    const found = stack.replicas[i];
    if (found === undefined) throw new Error(`no replica ${i}`);
    return found;
  };
  const installOf = (team: string) => {
    const found = stack.fake.installations.findLast((i) => !i.uninstalled && i.teamId === team);
    if (found === undefined) throw new Error(`${team} is not installed at the fake`);
    return found;
  };
  const allLogs = () => [0, 1].flatMap((i) => replica(i).logs);

  /** Someone of `team` shares a recording; resolves with its job once it has one. */
  async function upload(team: string, name: string, via: number): Promise<string> {
    const store = stack.fake.team(team);
    const file = store.addFile({ name, bytes: recordingBytes(name), user: userOf(team) });
    const message = store.shareFile(file, { channel: channelOf(team), user: userOf(team) });
    const event = fileShareMessageEvent(file, {
      channel: channelOf(team),
      user: userOf(team),
      ts: message.ts,
    });
    expect((await stack.sendEvent(replica(via), team, event)).status).toBe(200);
    const tenant = tenantOf(installKeyOf({ teamId: team }), team);
    const jobs = await eventually(
      () => replica(0).app.jobs.service.listByChannel(tenant, channelOf(team)),
      (list) => list.some((j) => j.source.filename === name),
    );
    return jobs.find((j) => j.source.filename === name)?.id ?? "";
  }
  const stageOf = async (id: string): Promise<Job | undefined> =>
    replica(0).app.jobs.service.get(id);
  const reaches = (id: string, stage: Job["stage"]) =>
    eventually(
      () => stageOf(id),
      (job) => job?.stage === stage,
      { timeoutMs: 20_000 },
    );

  /**
   * `team` installs the app again, and its person's App Home (opened on replica `via`) is
   * published once, saying Slack revoked the access and listing the `files` of its jobs.
   */
  async function homeAfterReinstall(team: string, via: number, files: string[]) {
    expect((await stack.install({ team })).status).toBe(200);
    const home = await stack.sendEvent(replica(via), team, appHomeOpenedEvent(userOf(team)));
    expect(home.status).toBe(200);
    await replica(via).app.idle();
    const published = stack.fake
      .callsTo("views.publish")
      .filter((c) => c.args.user_id === userOf(team) && c.error === undefined);
    expect(published).toHaveLength(1);
    const view = JSON.stringify(published[0]?.args.view);
    expect(view).toContain("Slack revoked my access to this workspace");
    for (const file of files) expect(view).toContain(file);
  }

  it("refreshes a token that expired while its job waited on the Note Service once, and the job ends with its note", async () => {
    stack.emulator.knobs.pollsToComplete = HOLD;
    const id = await upload(ALPHA, "alpha-weekly.m4a", 0);
    await reaches(id, "transcribing");
    const stale = installOf(ALPHA).botToken;
    stack.fake.expireToken(stale);
    stack.emulator.knobs.pollsToComplete = 1;

    // Naming waits for a person; its prompt was drawn with the refreshed token. Skipped as
    // the Skip button does (the job service), so that only the job runners meet the token.
    await reaches(id, "naming");
    expect((await replica(1).app.jobs.service.skipNaming(id)).ok).toBe(true);
    await reaches(id, "done");

    expect(installOf(ALPHA).refreshes).toBe(1);
    const fresh = installOf(ALPHA).botToken;
    expect(fresh).not.toBe(stale);
    const posts = stack.fake
      .callsTo("chat.postMessage")
      .filter((c) => c.args.channel === channelOf(ALPHA));
    const notes = posts.filter((c) => JSON.stringify(c.args).includes("note_part"));
    expect(notes.length).toBeGreaterThan(0);
    for (const note of notes) expect(note.headers.authorization).toBe(`Bearer ${fresh}`);
    expect(allLogs().filter((l) => l.includes("refreshed the bot token"))).toHaveLength(1);
    for (const line of allLogs()) {
      expect(line).not.toContain(stale);
      expect(line).not.toContain(fresh);
    }
  });

  it("stops a revoked install's jobs with one sentence each, says so once in the log, and shows it in App Home once installed again", async () => {
    stack.emulator.knobs.pollsToComplete = HOLD;
    const jobs = [await upload(BETA, "beta-one.m4a", 0), await upload(BETA, "beta-two.m4a", 1)];
    const alpha = await upload(ALPHA, "alpha-other.m4a", 1);
    for (const id of [...jobs, alpha]) await reaches(id, "transcribing");
    stack.fake.revokeRefreshToken(installOf(BETA).refreshToken ?? "");
    stack.fake.expireToken(installOf(BETA).botToken);
    stack.emulator.knobs.pollsToComplete = 1;

    for (const id of jobs) {
      const failed = await reaches(id, "failed");
      expect(failed).toMatchObject({ failure: { code: "install_unavailable" }, retryable: true });
    }
    const said = allLogs().filter((l) => l.includes("revoked the tokens of installation TT0BETA"));
    expect(said).toHaveLength(1);
    // No other line tells it again at error level: each job's end is a warning record.
    const errors = allLogs().filter((l) => JSON.parse(l).level >= 50);
    expect(errors).toEqual(said);
    // Alpha's job goes on: it waits for names, as it would.
    await reaches(alpha, "naming");

    // Installed again, Beta's App Home says what happened to the jobs. Published, not only
    // sent: a replica that still kept Beta's old record authorises the request with the
    // revoked token, and the publish is renewed with the new install's.
    await homeAfterReinstall(BETA, 1, ["beta-one.m4a", "beta-two.m4a"]);
  });

  it("refreshes once when both replicas meet the expired token at the same moment, and both App Homes are published with the fresh token", async () => {
    const stale = installOf(GAMMA).botToken;
    stack.fake.expireToken(stale);
    const [first, second] = await Promise.all(
      [0, 1].map((i) => stack.sendEvent(replica(i), GAMMA, appHomeOpenedEvent(userOf(GAMMA)))),
    );
    expect([first?.status, second?.status]).toEqual([200, 200]);
    await Promise.all([replica(0).app.idle(), replica(1).app.idle()]);

    expect(installOf(GAMMA).refreshes).toBe(1);
    const fresh = installOf(GAMMA).botToken;
    expect(fresh).not.toBe(stale);
    const published = stack.fake
      .callsTo("views.publish")
      .filter((c) => c.args.user_id === userOf(GAMMA) && c.error === undefined);
    expect(published).toHaveLength(2);
    for (const call of published) expect(call.headers.authorization).toBe(`Bearer ${fresh}`);
    const refreshed = allLogs().filter(
      (l) => l.includes("refreshed the bot token") && l.includes("TT0GAMMA"),
    );
    expect(refreshed).toHaveLength(1);
    for (const line of allLogs()) expect(line).not.toContain(fresh);
  });

  it("stops every job of a revoked install, those waiting for a person or on the Note Service too, on either replica", async () => {
    stack.emulator.knobs.pollsToComplete = 1;
    const waiting = await upload(DELTA, "delta-names.m4a", 0);
    await reaches(waiting, "naming");
    stack.emulator.knobs.pollsToComplete = HOLD;
    const polling = await upload(DELTA, "delta-polls.m4a", 1);
    await reaches(polling, "transcribing");
    const before = [0, 1].map((i) => replica(i).logs.length);
    stack.fake.revokeRefreshToken(installOf(DELTA).refreshToken ?? "");
    stack.fake.expireToken(installOf(DELTA).botToken);

    // No job's step calls Slack now: a person opening App Home is what meets the token.
    const home = await stack.sendEvent(replica(1), DELTA, appHomeOpenedEvent(userOf(DELTA)));
    expect(home.status).toBe(200);
    for (const id of [waiting, polling]) {
      const failed = await reaches(id, "failed");
      expect(failed).toMatchObject({ failure: { code: "install_unavailable" }, retryable: true });
    }
    await Promise.all([replica(0).app.idle(), replica(1).app.idle()]);
    const since = [0, 1].flatMap((i) => replica(i).logs.slice(before[i]));
    const said = since.filter((l) => l.includes("revoked the tokens of installation TT0DELTA"));
    expect(said).toHaveLength(1);
    expect(since.filter((l) => JSON.parse(l).level >= 50)).toEqual(said);
    const ended = since.filter((l) => l.includes('"msg":"job failed"'));
    expect(ended.map((l) => JSON.parse(l).jobId).sort()).toEqual([waiting, polling].sort());

    await homeAfterReinstall(DELTA, 0, ["delta-names.m4a", "delta-polls.m4a"]);
  });
});
