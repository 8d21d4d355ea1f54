import { LogLevel, WebClient } from "@slack/web-api";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SlackStoreResetNotices } from "../../../src/slack/gateway/store-reset-notices.ts";
import { SlackBudget } from "../../../src/slack/rate-budget/slack-budget.ts";
import { buildStatusMetadata } from "../../../src/slack/views/status-message.ts";
import { createFakeSlack, type FakeSlack } from "../../../support/fake-slack/create-fake-slack.ts";
import { DISTRIBUTED_PAGE } from "../../../support/fake-slack/history-methods.ts";

/**
 * The reads that remain are recovery's (a post whose answer was lost, a store that lost its
 * data): in a distributed app outside the Marketplace they go at Slack's one read a minute,
 * 15 messages a call, and still find what they look for. Slack's minute is a tenth of a
 * second here: the fake's rule and the bot's budget are scaled alike (600 times).
 */

const CHANNEL = "C0RECOVER1";
const ALICE = "U0ALICE001";
const SCALE = 600;

let fake: FakeSlack;
let notices: SlackStoreResetNotices;
beforeAll(async () => {
  fake = await createFakeSlack({ distributedApp: true, knobs: { rateScale: SCALE } });
  fake.addUser({ id: ALICE, name: "alice", real_name: "Alice" });
  fake.addChannel({ id: CHANNEL, name: "recovery" });
  const budget = new SlackBudget({
    logger: pino({ level: "silent" }),
    distribution: "distributed",
    allowanceScale: SCALE,
  });
  const client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logLevel: LogLevel.ERROR,
    fetch: budget.fetchFor("background", false, () => fake.teamId),
  });
  notices = new SlackStoreResetNotices(client);
});
afterAll(() => fake.close());

describe("recovery reads of a distributed app", () => {
  it("page through a long thread 15 messages a read, one read a minute, and find the status", async () => {
    const upload = fake.addMessage({ channel: CHANNEL, user: ALICE, text: "all-hands" });
    for (let i = 0; i < 40; i++) {
      fake.addMessage({ channel: CHANNEL, user: ALICE, text: `reply ${i}`, thread_ts: upload.ts });
    }
    fake.addMessage({
      channel: CHANNEL,
      user: fake.botUserId,
      text: "Transcribing all-hands.m4a…",
      thread_ts: upload.ts,
    });
    const status = fake.thread(CHANNEL, upload.ts).at(-1);
    if (status !== undefined) status.metadata = buildStatusMetadata("job-9", "F0REC00009");
    const origin = { teamId: fake.teamId, channelId: CHANNEL, threadTs: upload.ts, userId: ALICE };
    const started = performance.now();
    expect(await notices.threadHasStatusFor(origin, "F0REC00009")).toBe(true);
    const reads = fake.callsTo("conversations.replies");
    // 42 messages: three reads of 15, each a (scaled) minute after the one before.
    expect(reads.map((c) => Number(c.args.limit))).toEqual(
      [15, 15, 15].map(() => DISTRIBUTED_PAGE),
    );
    expect(reads.every((c) => c.status === 200)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual((60_000 / SCALE) * 2 * 0.9);
  });
});
