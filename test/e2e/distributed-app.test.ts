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
/** A channel whose recordings were all posted before the bot could see them. */
const OLD = "C0DISTOLD1";
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
  stack.fake.addChannel({ id: OLD, name: "old", members: [ALICE, BOB] });
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

/**
 * Opens `/meeting-notes` in `channel`; resolves to the names of the recent recordings it
 * offers and the hint under its upload field.
 */
async function openModal(channel: string): Promise<{ offered: string[]; hint: string }> {
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
    hint?: { text: string };
    element?: { options?: { text: { text: string } }[] };
  }[];
  const select = blocks.find((b) => b.block_id === INPUTS.recentRecording.block);
  const upload = blocks.find((b) => b.block_id === INPUTS.recording.block);
  return {
    offered: (select?.element?.options ?? []).map((o) => o.text.text),
    hint: upload?.hint?.text ?? "",
  };
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
    const jobsIn = (channel: string) => stack.app.jobs.service.listByChannel(stack.tenant, channel);
    await eventually(
      () => jobsIn(CHANNEL),
      (jobs) => jobs.length === UPLOADS,
    );
    await eventually(
      () => Promise.all(parents.map((ts) => stack.app.jobs.uploads.at(stack.tenant, QUIET, ts))),
      (seen) => seen.every((upload) => upload !== undefined),
    );
    for (const parent of parents) await mention(QUIET, parent);
    await eventually(
      () => jobsIn(QUIET),
      (jobs) => jobs.length === MENTIONS,
    );

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

  it("lists the recent recordings in /meeting-notes from 15 messages or fewer, and says in one sentence when Slack holds the read", async () => {
    // Where the bot saw the uploads, it lists them without a read.
    const names = uploads.map(({ file }) => file.name);
    const seen = await openModal(CHANNEL);
    expect(seen.offered).toHaveLength(10);
    expect(names).toEqual(expect.arrayContaining(seen.offered));
    expect(reads()).toEqual([]);
    // Recordings posted before the bot could see them: one read, of 15 messages or fewer.
    const before: string[] = [];
    for (let i = 0; i < 20; i++) {
      const name = `old-${i}.m4a`;
      const file = stack.fake.addFile({ name, bytes: recordingBytes(name, 2048, 5), user: ALICE });
      stack.fake.shareFile(file, { channel: OLD, user: ALICE, text: `Old ${i}` });
      before.push(name);
    }
    const read = await openModal(OLD);
    expect(read.offered).toHaveLength(10);
    expect(before).toEqual(expect.arrayContaining(read.offered));
    expect(reads()).toHaveLength(1);
    expect(reads()[0]).toMatchObject({ method: "conversations.history", status: 200 });
    expect(Number(reads()[0]?.args.limit)).toBeLessThanOrEqual(DISTRIBUTED_PAGE);
    // Again within Slack's minute: Slack is not asked, and the modal says why in a sentence.
    const again = await openModal(OLD);
    expect(again.offered).toEqual([]);
    expect(again.hint).toMatch(/^Recent recordings cannot be listed for a minute[^\n]*\.$/);
    expect(reads()).toHaveLength(1);
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
    expect(said).toHaveLength(1);
    expect(said[0]?.thread_ts).toBe(before.ts);
    expect(said[0]?.text).toMatch(/^[^\n]+\.$/);
    expect(said[0]?.text).toMatch(/minute/);
    const jobs = await stack.app.jobs.service.listByChannel(stack.tenant, QUIET);
    expect(jobs.filter((job) => job.source.fileId === file.id)).toEqual([]);
  });
});
