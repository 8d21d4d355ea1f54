import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileShared } from "../../../../src/slack/listeners/events/file-shared.ts";
import { buildFileNotices } from "../../../../src/slack/views/index.ts";
import { platformError } from "../../../../support/helpers/fake-web-client.ts";
import {
  ALICE,
  asRequest,
  BOT,
  buildEventArgs,
  buildListenerDeps,
  CHANNEL,
  fixtureIds,
  type ListenerKit,
  OTHER_CHANNEL,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

const FILE = "F0SHARED01";
/** The bot's direct message with Alice. */
const DM = "D0ALICEDM1";
const SHARE_TS = "1700000300.000100";

/** Slack's published `file_shared` delivery, for {@link FILE} shared by `user` in CHANNEL. */
function delivery(user = ALICE) {
  return loadObject("event-file_shared", fixtureIds({ file: FILE, user }));
}

/**
 * The mp3 of a published upload as `files.info` describes it once shared: with `shares`
 * naming the message (https://docs.slack.dev/reference/objects/file-object).
 */
function knowFile(share: { kind?: "public" | "private"; channel?: string; thread_ts?: string }) {
  const event = loadObject("event-message-file_share-mp3", fixtureIds({ file: FILE })).event;
  const file = (event as { files: Record<string, unknown>[] }).files[0] ?? {};
  const entry = {
    reply_users: [],
    reply_count: 0,
    ts: SHARE_TS,
    channel_name: "weekly",
    team_id: TEAM,
    share_user_id: ALICE,
    ...(share.thread_ts === undefined ? {} : { thread_ts: share.thread_ts }),
  };
  const channel = share.channel ?? CHANNEL;
  kit.workspace.files.set(FILE, {
    ...file,
    shares: { [share.kind ?? "public"]: { [channel]: [entry] } },
  });
  kit.workspace.messages.set(CHANNEL, [{ ts: SHARE_TS, user: ALICE, text: "Agenda: hiring plan" }]);
}

async function deliver(body: Record<string, unknown>) {
  await asRequest(() => fileShared(kit.deps)(buildEventArgs<"file_shared">(kit, body)));
}

const channelJobs = () => kit.jobs.listByChannel(TEAM, CHANNEL);

describe("fileShared", () => {
  it("looks the file up, answers in its message's thread, and reads that message's text", async () => {
    knowFile({});
    await deliver(delivery());
    expect(kit.slack.files.info).toHaveBeenCalledWith({ file: FILE });
    expect(kit.slack.conversations.replies).toHaveBeenCalledWith({
      channel: CHANNEL,
      ts: SHARE_TS,
      limit: 1,
      inclusive: true,
    });
    const jobs = await channelJobs();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      origin: { teamId: TEAM, channelId: CHANNEL, userId: ALICE, threadTs: SHARE_TS },
      source: { fileId: FILE, filename: "here we go again.mp3" },
      options: { contextText: "Agenda: hiring plan" },
    });
  });

  it("answers in the thread the file was shared into, from a private channel too", async () => {
    knowFile({ kind: "private", thread_ts: "1700000200.000001" });
    await deliver(delivery());
    const [job] = await channelJobs();
    expect(job?.origin.threadTs).toBe("1700000200.000001");
  });

  it("still starts the job when the message's text cannot be read", async () => {
    knowFile({});
    kit.slack.conversations.replies.mockRejectedValueOnce(platformError("missing_scope"));
    await deliver(delivery());
    const [job] = await channelJobs();
    expect(job).toMatchObject({ stage: "queued", options: {} });
  });

  it("ignores the bot's own uploads without looking them up", async () => {
    knowFile({});
    await deliver(delivery(BOT));
    expect(kit.slack.files.info).not.toHaveBeenCalled();
    expect(await channelJobs()).toEqual([]);
  });

  it("does nothing for a file not (yet) shown as shared in the event's channel", async () => {
    knowFile({ channel: OTHER_CHANNEL });
    await deliver(delivery());
    expect(await channelJobs()).toEqual([]);
    expect(kit.slack.conversations.replies).not.toHaveBeenCalled();
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("does nothing for a file Slack will not describe", async () => {
    await deliver(delivery());
    expect(kit.slack.files.info).toHaveBeenCalledWith({ file: FILE });
    expect(await channelJobs()).toEqual([]);
    expect(kit.slack.chat.postMessage).not.toHaveBeenCalled();
  });

  it("takes a recording sent to the bot in a direct message, and answers in its thread there", async () => {
    // Slack's published file_shared example is itself a DM (channel_id "D…").
    knowFile({ kind: "private", channel: DM });
    kit.workspace.messages.set(DM, [{ ts: SHARE_TS, user: ALICE, text: "Notes please" }]);
    await deliver(loadObject("event-file_shared", fixtureIds({ file: FILE, channel: DM })));
    const jobs = await kit.jobs.listByChannel(TEAM, DM);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      origin: { channelId: DM, userId: ALICE, threadTs: SHARE_TS },
      options: { contextText: "Notes please" },
    });
  });

  it("answers about any file sent to it in a direct message, not only recordings", async () => {
    const image = loadObject("event-message-file_share-image-in-dm", fixtureIds({ file: FILE }));
    const [file] = (image as { files: Record<string, unknown>[] }).files;
    const share = { ts: SHARE_TS, channel_name: "dm", team_id: TEAM, share_user_id: ALICE };
    kit.workspace.files.set(FILE, { ...file, shares: { private: { [DM]: [share] } } });
    await deliver(loadObject("event-file_shared", fixtureIds({ file: FILE, channel: DM })));
    expect(await kit.jobs.listByChannel(TEAM, DM)).toEqual([]);
    const notices = buildFileNotices(
      [{ name: "ghostrap.png", reason: "unsupported_format" }],
      "en",
    );
    expect(kit.slack.chat.postMessage.mock.calls).toEqual([
      [{ channel: DM, thread_ts: SHARE_TS, ...notices }],
    ]);
  });

  it("ignores an event without the ids it needs", async () => {
    const body = delivery();
    delete (body.event as Record<string, unknown>).file_id;
    await deliver(body);
    expect(kit.slack.auth.test).not.toHaveBeenCalled();
    expect(kit.slack.files.info).not.toHaveBeenCalled();
  });
});
