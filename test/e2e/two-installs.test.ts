import type { Authorize } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SINGLE_INSTALL, tenantOf } from "../../src/jobs/index.ts";
import { ACTIONS } from "../../src/slack/ids.ts";
import { installKeyOf } from "../../src/slack/installs/install-key.ts";
import { InstallUnavailable, type TokenSource } from "../../src/slack/installs/token-source.ts";
import { httpDelivery, type SlackDelivery } from "../../support/e2e/slack-delivery.ts";
import {
  ALICE,
  buttonOn,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
} from "../../support/e2e/stack.ts";
import type { FakeSlack } from "../../support/fake-slack/fake-slack-api.ts";
import {
  appHomeOpenedEvent,
  blockActionPayload,
  fileShareMessageEvent,
} from "../../support/fake-slack/slack-payloads.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * Two workspaces served by one deployment, each its own installation: the default one (A)
 * and Beta (B), each with its own bot token. Each uploads a recording; each job's Slack
 * calls carry its own workspace's token; neither workspace can see, cancel or name the
 * other's job, a replayed button value included; uninstalling B forgets only B's data.
 */
const B = "T0BETA";
const CHANNEL_B = "C0BETA001";
const BEA = "U0BEA0001";

/** The test's installs: each workspace's install key → the fake's token for it. */
function twoInstalls(fake: FakeSlack): { tokens: TokenSource; authorize: Authorize<boolean> } {
  const tokenOf = new Map<string, string>([
    [installKeyOf({ teamId: fake.teamId }), fake.botToken],
    [installKeyOf({ teamId: B }), fake.team(B).botToken ?? ""],
  ]);
  const tokens: TokenSource = {
    async botToken(install) {
      const token = tokenOf.get(install);
      if (token === undefined) throw new InstallUnavailable(install, "not_installed");
      return token;
    },
    async refused() {
      return undefined;
    },
  };
  const authorize: Authorize<boolean> = async (source) => {
    const teamId = source.teamId;
    const token = teamId === undefined ? undefined : tokenOf.get(installKeyOf({ teamId }));
    if (teamId === undefined || token === undefined) throw new Error("no installation");
    return { botToken: token, teamId };
  };
  return { tokens, authorize };
}

let stack: Stack;
let deliverB: SlackDelivery;
let tokenA: string;
let tokenB: string;
const installA = () => installKeyOf({ teamId: stack.fake.teamId });
const installB = installKeyOf({ teamId: B });

beforeAll(async () => {
  stack = await startStack(
    {},
    { teams: [{ id: B, name: "Beta", domain: "beta", installed: true }], installs: twoInstalls },
  );
  tokenA = stack.fake.botToken;
  tokenB = stack.fake.team(B).botToken ?? "";
  // An admin of Beta: Slack lets a workspace admin cancel any job of her own workspace.
  const bea = { id: BEA, name: "bea", real_name: "Bea Beta", locale: "en-US", is_admin: true };
  stack.fake.team(B).addUser(bea);
  stack.fake.team(B).addChannel({ id: CHANNEL_B, name: "beta-sync", members: [BEA] });
  deliverB = httpDelivery(stack.url, SIGNING_SECRET, B);
});
afterAll(() => stack.stop());

/** Bea uploads a recording in Beta's channel, delivered as Slack sends it to B's install. */
async function shareInBeta(name: string) {
  const team = stack.fake.team(B);
  const file = team.addFile({ name, bytes: recordingBytes(name), user: BEA });
  const message = team.shareFile(file, { channel: CHANNEL_B, user: BEA, text: "" });
  const event = fileShareMessageEvent(file, { channel: CHANNEL_B, user: BEA, ts: message.ts });
  expect((await deliverB.event(event)).acked).toBe(true);
  return { ts: message.ts };
}

/** The job in Beta's thread, once it asks for names. */
async function betaJob(ts: string) {
  const status = await eventually(
    () => stack.fake.team(B).thread(CHANNEL_B, ts),
    (messages) => messages.some((m) => JSON.stringify(m.blocks ?? []).includes(ACTIONS.skipNaming)),
  );
  const jobs = await stack.app.jobs.service.listByChannel(tenantOf(installB, B), CHANNEL_B);
  expect(jobs).toHaveLength(1);
  expect(status.length).toBeGreaterThan(0);
  return jobs[0]?.id ?? "";
}

/** The bearer token a recorded call carried. */
const tokenOfCall = (headers: Record<string, unknown>) =>
  String(headers.authorization ?? "").replace(/^Bearer\s+/i, "");

describe("two installations in one deployment", () => {
  let jobA = "";
  let statusA = "";
  let threadA = "";
  let jobB = "";

  it("runs each workspace's job with its own workspace's token, under its own tenant", async () => {
    const a = await shareRecording(stack, "alpha-weekly.m4a");
    const b = await shareInBeta("beta-weekly.m4a");
    const buttonA = await buttonOn(stack, a.ts, ACTIONS.skipNaming);
    jobA = buttonA.jobId;
    statusA = buttonA.statusTs;
    threadA = a.ts;
    jobB = await betaJob(b.ts);
    const [recordA, recordB] = [await stack.job(jobA), await stack.job(jobB)];
    expect(recordA?.origin).toMatchObject({ install: installA(), teamId: stack.fake.teamId });
    expect(recordB?.origin).toMatchObject({ install: installB, teamId: B });
    // Every call about a channel carries the token of the workspace the channel is in.
    const about = (channel: string) =>
      stack.fake.calls.filter((c) => c.args.channel === channel).map((c) => tokenOfCall(c.headers));
    expect(about(CHANNEL).length).toBeGreaterThan(0);
    expect(about(CHANNEL_B).length).toBeGreaterThan(0);
    expect(new Set(about(CHANNEL))).toEqual(new Set([tokenA]));
    expect(new Set(about(CHANNEL_B))).toEqual(new Set([tokenB]));
    // Nothing was noted under the single-token mode's keys.
    const tenants = await stack.app.store.listMembers("teams");
    expect(tenants.sort()).toEqual(
      [tenantOf(installA(), stack.fake.teamId), tenantOf(installB, B)].sort(),
    );
    expect(tenants).not.toContain(tenantOf(SINGLE_INSTALL, B));
  });

  it("refuses a button value replayed from the other workspace as a job it cannot find", async () => {
    const before = stack.fake.ephemerals.length;
    // Bea, an admin in Beta, replays Alice's Cancel button exactly as it was (A's job id,
    // channel and status message), sent to Beta's install.
    const replay = blockActionPayload({
      actionId: ACTIONS.cancel,
      value: jobA,
      user: BEA,
      channel: CHANNEL,
      messageTs: statusA,
      threadTs: threadA,
      teamId: B,
    });
    expect((await deliverB.interaction(replay)).acked).toBe(true);
    await stack.settled();
    expect((await stack.job(jobA))?.stage).not.toBe("canceled");
    // Refused before any permission is weighed: the job is not the request's install's
    // (the sentence, "cannot find that job", cannot even reach Bea in a channel of A).
    expect(stack.logs.join("")).toContain("a request named a job of another installation");
    expect(stack.fake.ephemerals.slice(before).some((e) => e.user === BEA)).toBe(false);
    // Alice, in A, cannot name B's job either.
    const reverse = blockActionPayload({
      actionId: ACTIONS.cancel,
      value: jobB,
      user: ALICE,
      channel: CHANNEL,
      messageTs: "1700000000.000200",
    });
    expect((await stack.deliver.interaction(reverse)).acked).toBe(true);
    await stack.settled();
    expect((await stack.job(jobB))?.stage).not.toBe("canceled");
  });

  it("shows each person, in App Home, the jobs of their own workspace only", async () => {
    const before = stack.fake.views.length;
    expect((await deliverB.event(appHomeOpenedEvent(BEA))).acked).toBe(true);
    const published = await eventually(
      () => stack.fake.views.slice(before).filter((v) => v.op === "publish"),
      (views) => views.length > 0,
    );
    const home = JSON.stringify(published.at(-1)?.view);
    expect(home).toContain("beta-weekly.m4a");
    expect(home).not.toContain("alpha-weekly.m4a");
  });

  it("forgets only Beta's data when Beta uninstalls", async () => {
    const uninstalled = await deliverB.event({ type: "app_uninstalled", event_ts: "1700000001" });
    expect(uninstalled.acked).toBe(true);
    await eventually(
      () => stack.job(jobB),
      (job) => job === undefined,
    );
    await stack.settled();
    expect(await stack.job(jobA)).toBeDefined();
    const tenants = await stack.app.store.listMembers("teams");
    expect(tenants).toEqual([tenantOf(installA(), stack.fake.teamId)]);
    expect(
      await stack.app.jobs.service.listByChannel(tenantOf(installA(), stack.fake.teamId), CHANNEL),
    ).toHaveLength(1);
  });
});
