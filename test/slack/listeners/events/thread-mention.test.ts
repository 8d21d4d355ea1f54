import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StartNotRecorded } from "../../../../src/jobs/index.ts";
import {
  readMention,
  threadMention,
} from "../../../../src/slack/listeners/events/thread-mention.ts";
import { t } from "../../../../src/slack/messages/catalog.ts";
import { eventCallback } from "../../../../support/fake-slack/slack-payloads.ts";
import {
  ALICE,
  asRequest,
  BOB,
  BOT,
  BOT_ID,
  buildEventArgs,
  buildListenerDeps,
  CHANNEL,
  ephemerals,
  fixtureIds,
  type ListenerKit,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";

const THREAD = "1700000500.000100";
const RECORDING = "F0MENTION1";

/** Slack's published mention, as Bob's reply in the thread at `thread` (the envelope). */
function mention(thread = THREAD, extra: Record<string, unknown> = {}) {
  const envelope = loadObject(
    "event-message-mention-in-thread",
    fixtureIds({ user: BOB, threadTs: thread }),
  );
  envelope.event = { ...(envelope.event as Record<string, unknown>), ...extra };
  return envelope;
}

const eventOf = (envelope: Record<string, unknown>) => envelope.event as Record<string, unknown>;

describe("readMention", () => {
  it("reads Slack's published mention as a reply in its thread", () => {
    const event = eventOf(mention());
    expect(readMention(event, BOT)).toEqual({
      channelId: CHANNEL,
      userId: BOB,
      ts: event.ts,
      threadTs: THREAD,
    });
  });

  it("reads a mention in the channel itself as one without a thread", () => {
    const event = eventOf(mention());
    expect(readMention({ ...event, thread_ts: undefined }, BOT)?.threadTs).toBeUndefined();
    expect(readMention({ ...event, thread_ts: event.ts }, BOT)?.threadTs).toBeUndefined();
    expect(readMention({ ...event, text: `hi <@${BOT}|meeting-notes>` }, BOT)).toBeDefined();
    // A reply also sent to the channel is still a reply in its thread.
    const broadcast = { ...event, subtype: "thread_broadcast" };
    expect(readMention(broadcast, BOT)?.threadTs).toBe(THREAD);
  });

  it.each([
    ["the bot's own message", { user: BOT }],
    ["another app's message", { bot_id: "B0OTHER001" }],
    ["an edit (a subtype)", { subtype: "message_changed" }],
    ["an upload (its listener answers it)", { files: [{ id: "F0SOME0001" }] }],
    ["a message mentioning someone else", { text: `<@${ALICE}> have a look` }],
    ["a message with no text", { text: undefined }],
  ])("is nothing for %s", (_what, changes) => {
    expect(readMention({ ...eventOf(mention()), ...changes }, BOT)).toBeUndefined();
  });
});

describe("threadMention", () => {
  let kit: ListenerKit;
  beforeEach(async () => {
    kit = await buildListenerDeps();
  });
  afterEach(() => kit.close());

  /** Alice's upload, the parent of {@link THREAD}, with her mp3 (or `files`). */
  function parent(files?: Record<string, unknown>[]) {
    const event = loadObject("event-message-file_share-mp3", fixtureIds({ file: RECORDING })).event;
    const [file] = (event as { files: Record<string, unknown>[] }).files;
    if (file === undefined) throw new Error("no file");
    kit.workspace.files.set(RECORDING, { ...file, channels: [CHANNEL] });
    const shown = files ?? [file];
    kit.workspace.messages.set(CHANNEL, [
      { ts: THREAD, text: "Weekly sync", user: ALICE, files: shown },
    ]);
  }

  const deliver = (envelope: Record<string, unknown>) =>
    asRequest(() => threadMention(kit.deps)(buildEventArgs<"message">(kit, envelope)));
  const jobs = () => kit.jobs.listByChannel(TEAM, CHANNEL);

  it("starts the parent's recording in the thread, whatever the channel's setting, once", async () => {
    parent();
    await kit.services.settings.set(TEAM, CHANNEL, { autoTranscribe: false, languageHint: "vi" });
    const envelope = mention();
    await deliver(envelope);
    await deliver(envelope);
    const started = await jobs();
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({
      origin: { teamId: TEAM, channelId: CHANNEL, threadTs: THREAD, userId: BOB },
      source: { fileId: RECORDING },
      options: { contextText: "Weekly sync", languageHint: "vi" },
    });
    expect(ephemerals(kit)).toEqual([]);
  });

  it("answers a second mention that the notes are already being made", async () => {
    parent();
    await deliver(mention());
    await deliver(mention(THREAD, { user: ALICE }));
    expect(await jobs()).toHaveLength(1);
    expect(ephemerals(kit)).toEqual([
      expect.objectContaining({
        channel: CHANNEL,
        user: ALICE,
        thread_ts: THREAD,
        text: expect.stringMatching(/^Notes for this recording are already being made/),
      }),
    ]);
  });

  it("answers how to use the bot where the thread holds no recording, to that person alone", async () => {
    parent([]);
    await deliver(mention());
    expect(ephemerals(kit)).toEqual([
      expect.objectContaining({ user: BOB, thread_ts: THREAD, text: t("en", "usage.intro") }),
    ]);
    expect(await jobs()).toEqual([]);
  });

  it("says why a recording the bot cannot read is not taken, with what to do", async () => {
    const hidden = loadObject("file-hidden_by_limit", fixtureIds({ file: "F0HIDDEN01" }));
    const [file] = (hidden.messages as { files: Record<string, unknown>[] }[])[0]?.files ?? [];
    parent(file === undefined ? [] : [file]);
    kit.workspace.files.set("F0HIDDEN01", file ?? {});
    await deliver(mention());
    expect(ephemerals(kit).map((e) => e.text)).toEqual([
      t("en", "refusal.unreadable", { file: t("en", "refusal.unnamed") }),
    ]);
  });

  it("keeps the start for later when the store fails, and says so", async () => {
    parent();
    const start = kit.jobs.start.bind(kit.jobs);
    kit.jobs.start = async () => {
      kit.jobs.start = start;
      throw new StartNotRecorded({ jobId: "job-kept", claimed: true }, new Error("store down"));
    };
    await deliver(mention());
    expect(kit.kept).toEqual([
      expect.objectContaining({
        kind: "thread",
        origin: expect.objectContaining({ threadTs: THREAD, userId: BOB }),
        source: expect.objectContaining({ fileId: RECORDING }),
        attempt: { jobId: "job-kept", claimed: true },
      }),
    ]);
    expect(ephemerals(kit).map((e) => e.text)).toEqual([t("en", "mention.pending")]);
  });

  it("finds the recording of an upload it saw in the thread without reading history", async () => {
    parent();
    await asRequest(() =>
      kit.services.uploads.saw(TEAM, CHANNEL, {
        ts: THREAD,
        userId: ALICE,
        text: "Agenda: hiring plan",
        files: [{ id: RECORDING, name: "here we go again.mp3", recording: true }],
      }),
    );
    await deliver(mention());
    const [job] = await jobs();
    expect(job).toMatchObject({
      origin: { threadTs: THREAD, userId: BOB },
      source: { fileId: RECORDING },
      options: { contextText: "Agenda: hiring plan" },
    });
    expect(kit.slack.conversations.replies).not.toHaveBeenCalled();
    // Described by Slack all the same: only files.info says the bot may read it.
    expect(kit.slack.files.info).toHaveBeenCalledWith({ file: RECORDING });
  });

  it("finds the recording of a job it started in the thread without reading history", async () => {
    parent();
    await deliver(mention());
    kit.slack.conversations.replies.mockClear();
    await deliver(mention(THREAD, { user: ALICE, ts: "1700000700.000100" }));
    expect(kit.slack.conversations.replies).not.toHaveBeenCalled();
    expect(ephemerals(kit).map((e) => e.text)).toEqual([
      expect.stringMatching(/^Notes for this recording are already being made/),
    ]);
  });

  it("says in one sentence when the thread's first message cannot be read for Slack's rate", async () => {
    parent();
    kit.slack.conversations.replies.mockRejectedValueOnce(
      Object.assign(new Error("A rate-limit has been reached"), {
        code: "slack_webapi_rate_limited_error",
        retryAfter: 60,
      }),
    );
    await deliver(mention());
    expect(ephemerals(kit)).toEqual([
      expect.objectContaining({
        user: BOB,
        thread_ts: THREAD,
        text: t("en", "mention.history_busy"),
      }),
    ]);
    expect(await jobs()).toEqual([]);
  });

  it("never answers the bot's own message, even one mentioning itself", async () => {
    parent();
    const own = {
      type: "message",
      channel: CHANNEL,
      user: BOT,
      bot_id: BOT_ID,
      text: `<@${BOT}>`,
      ts: "1700000600.000100",
      thread_ts: THREAD,
    };
    await deliver(eventCallback(own, { teamId: TEAM, eventId: "Ev0OWN0001" }));
    expect(await jobs()).toEqual([]);
    expect(ephemerals(kit)).toEqual([]);
    expect(kit.slack.users.info).not.toHaveBeenCalled();
  });
});
