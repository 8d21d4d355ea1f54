import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INPUTS, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  BOB,
  CHANNEL,
  eventually,
  type Stack,
  startStack,
} from "../../support/e2e/stack.ts";
import type { FakeCall, SlackFileObject } from "../../support/fake-slack/fake-slack-types.ts";
import { DISTRIBUTED_PAGE } from "../../support/fake-slack/history-methods.ts";
import { messageEvent } from "../../support/fake-slack/slack-payloads.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * A distributed app outside the Slack Marketplace, as Slack limits it since May 2025:
 * `conversations.history` and `conversations.replies` at 1 request a minute per workspace
 * and 15 objects a call (support/fake-slack/history-methods.ts quotes the rule). What a
 * person waits for never reads history: a busy minute of uploads and mentions in one
 * workspace starts every job with its context, and the `/meeting-notes` modal still lists
 * the channel's recent recordings. Slack's real limits here (no test scale): the minute is
 * Slack's minute.
 */

const QUIET = "C0DISTQT01";
const UPLOADS = 20;
const MENTIONS = 10;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack(
    { FFMPEG_PATH: "/nonexistent/ffmpeg" },
    {
      distributedApp: true,
      rateScale: 1,
      deliverEvents: true,
      // Status edits as production paces them: this test is about reads, not edits.
      runner: { statusThrottleMs: 5_000 },
    },
  );
  // The jobs wait in transcribing: what this test looks at is how they started.
  stack.emulator.knobs.pollsToComplete = 1_000;
  stack.fake.addChannel({ id: QUIET, name: "quiet", members: [ALICE, BOB] });
  await stack.app.jobs.settings.set(stack.tenant, QUIET, { autoTranscribe: false });
}, 60_000);
afterAll(() => stack.stop(), 60_000);

/** Alice uploads a recording with `text`, and Slack sends the events it sends for it. */
function upload(channel: string, name: string, text: string) {
  const file = stack.fake.addFile({ name, bytes: recordingBytes(name, 2048, 3), user: ALICE });
  const message = stack.fake.shareFile(file, { channel, user: ALICE, text });
  stack.fake.deliverShare(message);
  return { file, message };
}

/** A message ts a microsecond after `ts` (a reply is later than its parent). */
function later(ts: string): string {
  const micros = (BigInt(ts.replace(".", "")) + 1n).toString();
  return `${micros.slice(0, -6)}.${micros.slice(-6)}`;
}

/** Bob says "@Meeting Notes" in the thread of `parent`, as a person does. */
async function mention(channel: string, parent: string) {
  const text = `<@${stack.fake.botUserId}> notes please`;
  const said = stack.fake.addMessage({
    channel,
    user: BOB,
    text,
    thread_ts: parent,
    ts: later(parent),
  });
  const event = messageEvent({ channel, user: BOB, text, ts: said.ts, thread_ts: parent });
  expect((await stack.deliver.event(event)).acked).toBe(true);
}

const reads = (): FakeCall[] =>
  stack.fake.calls.filter(
    (c) => c.method === "conversations.history" || c.method === "conversations.replies",
  );

/** Opens `/meeting-notes` in `channel`; resolves to the names of the recent recordings offered. */
async function recentOffered(channel: string): Promise<string[]> {
  const views = stack.fake.views.length;
  const sent = await stack.deliver.command({
    text: "",
    user_id: ALICE,
    channel_id: channel,
    team_id: stack.fake.teamId,
    response_url: stack.fake.responseUrl(),
  });
  expect(sent.acked).toBe(true);
  const filled = await eventually(
    () => stack.fake.views.slice(views).find((v) => v.op === "update"),
    (v) => v !== undefined,
  );
  expect(filled?.view.callback_id).toBe(VIEWS.newNotes);
  const blocks = (filled?.view.blocks ?? []) as {
    block_id?: string;
    element?: { options?: { text: { text: string } }[] };
  }[];
  const select = blocks.find((b) => b.block_id === INPUTS.recentRecording.block);
  return (select?.element?.options ?? []).map((o) => o.text.text);
}

describe("a distributed app outside the Marketplace, one busy minute", () => {
  const uploads: { file: SlackFileObject; text: string }[] = [];
  const mentioned: { file: SlackFileObject; text: string }[] = [];

  it("starts every upload's and every mention's job with its context, reading no history", async () => {
    for (let i = 0; i < UPLOADS; i++) {
      const text = `Agenda ${i}: hiring plan and Q${(i % 4) + 1} budget`;
      uploads.push({ file: upload(CHANNEL, `sync-${i}.m4a`, text).file, text });
    }
    const parents: string[] = [];
    for (let i = 0; i < MENTIONS; i++) {
      const text = `Retro ${i}: what went well`;
      const shared = upload(QUIET, `retro-${i}.m4a`, text);
      mentioned.push({ file: shared.file, text });
      parents.push(shared.message.ts);
    }
    // Slack delivers the uploads' events first; the mentions come in their threads after.
    await stack.settled();
    for (const parent of parents) await mention(QUIET, parent);
    await stack.settled();

    const jobs = [
      ...(await stack.app.jobs.service.listByChannel(stack.tenant, CHANNEL)),
      ...(await stack.app.jobs.service.listByChannel(stack.tenant, QUIET)),
    ];
    const contextOf = new Map(jobs.map((job) => [job.source.fileId, job.options.contextText]));
    expect(jobs).toHaveLength(UPLOADS + MENTIONS);
    for (const { file, text } of [...uploads, ...mentioned]) {
      expect(contextOf.get(file.id), file.name).toBe(text);
    }
    for (const job of jobs.filter((j) => j.origin.channelId === QUIET)) {
      expect(job.origin.userId).toBe(BOB);
    }
    // Nothing any of it waited for read a conversation's messages.
    expect(reads()).toEqual([]);
  }, 60_000);

  it("lists the channel's recent recordings in /meeting-notes from 15 messages or fewer, and again within the minute", async () => {
    const names = uploads.map(({ file }) => file.name);
    const first = await recentOffered(CHANNEL);
    expect(first.length).toBeGreaterThan(0);
    expect(names).toEqual(expect.arrayContaining(first));
    // Asked again in the same minute: still listed, and Slack was not asked twice.
    const again = await recentOffered(CHANNEL);
    expect(again.length).toBeGreaterThan(0);
    expect(names).toEqual(expect.arrayContaining(again));
    for (const call of reads()) {
      expect(call.method).toBe("conversations.history");
      expect(Number(call.args.limit)).toBeLessThanOrEqual(DISTRIBUTED_PAGE);
    }
    expect(reads().length).toBeLessThanOrEqual(1);
    // The bot kept within Slack's minute: no read was refused.
    expect(reads().filter((c) => c.status === 429)).toEqual([]);
  });

  it("says in one sentence that it cannot look yet when a mention needs a read Slack refuses", async () => {
    // A recording posted before the bot could see it: no event, nothing stored of it, so
    // the mention needs its thread's first message; Slack refuses the read (its minute).
    const file = stack.fake.addFile({
      name: "before.m4a",
      bytes: recordingBytes("before.m4a", 2048, 4),
      user: ALICE,
    });
    const before = stack.fake.shareFile(file, { channel: QUIET, user: ALICE, text: "Old one" });
    stack.fake.knobs.rateLimit = { method: "conversations.replies", count: 1, retryAfter: 60 };
    const told = stack.fake.ephemerals.length;
    await mention(QUIET, before.ts);
    const said = await eventually(
      () => stack.fake.ephemerals.slice(told).filter((e) => e.user === BOB),
      (e) => e.length > 0,
    );
    await stack.settled();
    expect(stack.fake.ephemerals.slice(told)).toHaveLength(1);
    expect(said[0]?.thread_ts).toBe(before.ts);
    expect(said[0]?.text).toMatch(/^[^\n]+\.$/);
    expect(said[0]?.text).toMatch(/minute/);
    const jobs = await stack.app.jobs.service.listByChannel(stack.tenant, QUIET);
    expect(jobs.filter((job) => job.source.fileId === file.id)).toEqual([]);
  });
});
