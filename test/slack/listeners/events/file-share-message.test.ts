import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileShareMessage } from "../../../../src/slack/listeners/events/file-share-message.ts";
import { buildFileNotices } from "../../../../src/slack/views/thread-replies.ts";
import { eventCallback } from "../../../../support/fake-slack/slack-payloads.ts";
import {
  ALICE,
  asRequest,
  buildEventArgs,
  buildListenerDeps,
  CHANNEL,
  fixtureIds,
  type ListenerKit,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

/** A published `event_callback` delivery; its `event` may be changed before sending. */
function delivery(name: string) {
  const body = loadObject(name, fixtureIds());
  return { body, event: body.event as Record<string, unknown> };
}

async function deliver(body: Record<string, unknown>) {
  await asRequest(() => fileShareMessage(kit.deps)(buildEventArgs<"message">(kit, body)));
}

const channelJobs = () => kit.jobs.listByChannel(TEAM, CHANNEL);

describe("fileShareMessage", () => {
  it("starts a job for a shared recording, answering in the upload's own thread", async () => {
    const { body, event } = delivery("event-message-file_share-mp3");
    await deliver(body);
    const jobs = await channelJobs();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      stage: "queued",
      origin: { teamId: TEAM, channelId: CHANNEL, userId: ALICE, threadTs: event.ts },
      source: { filename: "here we go again.mp3", size: 102122 },
    });
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("answers in the thread a recording was posted in, with its text as context", async () => {
    const { body, event } = delivery("event-message-file_share-mp3");
    event.thread_ts = "1700000000.000001";
    event.text = "Weekly sync: roadmap and budget";
    await deliver(body);
    const [job] = await channelJobs();
    expect(job?.origin.threadTs).toBe("1700000000.000001");
    expect(job?.options).toEqual({ contextText: "Weekly sync: roadmap and budget" });
  });

  it("keeps an upload of a recording as seen, with its text, for a mention in its thread later", async () => {
    const { body, event } = delivery("event-message-file_share-mp3");
    event.text = "Agenda: hiring plan";
    await kit.services.settings.set(TEAM, CHANNEL, { autoTranscribe: false });
    await deliver(body);
    expect(await channelJobs()).toEqual([]);
    const seen = await kit.services.uploads.at(TEAM, CHANNEL, String(event.ts));
    expect(seen).toEqual({
      ts: event.ts,
      userId: ALICE,
      text: "Agenda: hiring plan",
      files: [{ id: expect.any(String), name: "here we go again.mp3", recording: true }],
    });
  });

  it("keeps no upload posted as a reply, nor one with no file that may be a recording", async () => {
    const reply = delivery("event-message-file_share-mp3");
    reply.event.thread_ts = "1700000000.000001";
    await deliver(reply.body);
    expect(await kit.services.uploads.at(TEAM, CHANNEL, String(reply.event.ts))).toBeUndefined();
    await deliver(delivery("event-message-file_share-image").body);
    expect(await kit.services.uploads.recent(TEAM, CHANNEL, 10)).toEqual([]);
  });

  it.each(["message_changed", "message_deleted", "bot_message", "thread_broadcast"])(
    "ignores a message of subtype %s",
    async (subtype) => {
      const { body, event } = delivery("event-message-file_share-mp3");
      event.subtype = subtype;
      await deliver(body);
      expect(await channelJobs()).toEqual([]);
      expect(kit.slack.auth.test).not.toHaveBeenCalled();
      expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
    },
  );

  it("ignores files posted by any app's bot", async () => {
    const { body, event } = delivery("event-message-file_share-mp3");
    event.bot_id = "B0OTHERAPP";
    await deliver(body);
    expect(await channelJobs()).toEqual([]);
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("ignores a bot's message as Slack delivers it (no subtype, no files)", async () => {
    await deliver(delivery("event-message-bot").body);
    expect(await channelJobs()).toEqual([]);
    expect(kit.slack.auth.test).not.toHaveBeenCalled();
  });

  it("says nothing about an image shared in a channel", async () => {
    await deliver(delivery("event-message-file_share-image").body);
    expect(await channelJobs()).toEqual([]);
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("starts a job for a recording sent to it in a direct message, answering in that DM", async () => {
    // Slack's published DM upload (channel_type "im"), carrying the published mp3 instead.
    const dm = loadObject("event-message-file_share-image-in-dm", fixtureIds());
    const mp3 = delivery("event-message-file_share-mp3").event.files;
    dm.files = mp3;
    await deliver(eventCallback(dm, { teamId: TEAM, eventId: "Ev0DMMP3001" }));
    const jobs = await kit.jobs.listByChannel(TEAM, String(dm.channel));
    expect(String(dm.channel)).toMatch(/^D/);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      origin: { channelId: dm.channel, userId: ALICE, threadTs: dm.ts },
      source: { filename: "here we go again.mp3" },
    });
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("answers about every file sent to it in a direct message, in one reply", async () => {
    // Slack's published DM example: no subtype, "bot_id": null, channel_type "im".
    const event = loadObject("event-message-file_share-image-in-dm", fixtureIds());
    const snippet = loadObject("file-snippet", fixtureIds());
    event.files = [...(event.files as unknown[]), snippet];
    await deliver(eventCallback(event, { teamId: TEAM, eventId: "Ev0DMSHARE1" }));
    const notices = buildFileNotices(
      [
        { name: "ghostrap.png", reason: "unsupported_format" },
        { name: "Untitled", reason: "unsupported_format" },
      ],
      "en",
    );
    expect(kit.slack.chat.postMessage.mock.calls).toEqual([
      [{ channel: event.channel, thread_ts: event.ts, ...notices }],
    ]);
  });
});
