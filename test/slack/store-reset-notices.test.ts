import { LogLevel, WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KnownJob } from "../../src/jobs/index.ts";
import { SlackStoreResetNotices } from "../../src/slack/gateway/store-reset-notices.ts";
import { buildStatusMetadata } from "../../src/slack/views/status-message.ts";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";

const CHANNEL = "C0RESET001";
const ALICE = "U0ALICE001";
const LOST_EN =
  "This recording's notes were lost when the bot's storage was reset; upload it again.";

describe("SlackStoreResetNotices", () => {
  let fake: FakeSlack;
  let client: WebClient;
  let notices: SlackStoreResetNotices;
  beforeAll(async () => {
    fake = await createFakeSlack();
    fake.addUser({ id: ALICE, name: "alice", real_name: "Alice" });
    fake.addChannel({ id: CHANNEL, name: "weekly-sync" });
    client = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });
    notices = new SlackStoreResetNotices(client);
  });
  afterAll(() => fake.close());

  const lostJob = (threadTs: string, over: Partial<KnownJob> = {}): KnownJob => ({
    id: "job-1",
    origin: { teamId: fake.teamId, channelId: CHANNEL, threadTs, userId: ALICE, locale: "vi-VN" },
    fileId: "F0REC00001",
    filename: "standup.m4a",
    seenAt: 0,
    ...over,
  });

  it("edits the job's status message to one sentence, in the person's language, tagged with the file", async () => {
    const upload = fake.addMessage({ channel: CHANNEL, user: ALICE, text: "standup" });
    const status = await client.chat.postMessage({
      channel: CHANNEL,
      thread_ts: upload.ts,
      text: "Transcribing standup.m4a…",
      metadata: buildStatusMetadata("job-1"),
    });
    await notices.tellJobLost(lostJob(upload.ts, { statusTs: String(status.ts) }));
    const [edited, ...others] = fake.thread(CHANNEL, upload.ts).slice(1);
    expect(others).toEqual([]);
    expect(edited?.text).toMatch(/^Biên bản của bản ghi âm này đã bị mất/);
    expect(edited?.blocks).toHaveLength(1);
    expect(edited?.metadata?.event_payload).toEqual({
      job_id: "job-1",
      kind: "status",
      file_id: "F0REC00001",
    });
    expect(await notices.threadHasStatusFor(lostJob(upload.ts).origin, "F0REC00001")).toBe(true);
    expect(await notices.threadHasStatusFor(lostJob(upload.ts).origin, "F0OTHER001")).toBe(false);
  });

  it("posts the sentence when the job had no status message yet, so the thread still tells", async () => {
    const upload = fake.addMessage({ channel: CHANNEL, user: ALICE, text: "retro" });
    const origin = { ...lostJob(upload.ts).origin, locale: "en-US" };
    expect(await notices.threadHasStatusFor(origin, "F0REC00001")).toBe(false);
    await notices.tellJobLost(lostJob(upload.ts, { origin }));
    const posted = fake.thread(CHANNEL, upload.ts).at(-1);
    expect(posted?.text).toBe(LOST_EN);
    expect(await notices.threadHasStatusFor(origin, "F0REC00001")).toBe(true);
  });
});
