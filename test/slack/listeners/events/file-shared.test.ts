import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileShared } from "../../../../src/slack/listeners/events/file-shared.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";
import { platformError } from "../../../helpers/fake-web-client.ts";
import {
  ALICE,
  BOT,
  buildEventArgs,
  buildListenerDeps,
  CHANNEL,
  fixtureIds,
  type ListenerKit,
  OTHER_CHANNEL,
  TEAM,
} from "../../../helpers/listener-args.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

const FILE = "F0SHARED01";
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
  await fileShared(kit.deps)(buildEventArgs<"file_shared">(kit, body));
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

  it("ignores an event without the ids it needs", async () => {
    const body = delivery();
    delete (body.event as Record<string, unknown>).file_id;
    await deliver(body);
    expect(kit.slack.auth.test).not.toHaveBeenCalled();
    expect(kit.slack.files.info).not.toHaveBeenCalled();
  });
});
