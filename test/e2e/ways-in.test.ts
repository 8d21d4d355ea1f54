import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIONS, INPUTS, SHORTCUTS, VIEWS } from "../../src/slack/ids.ts";
import { PayloadKit, WAYS_IN_FIXTURES } from "../../support/e2e/payload-kit.ts";
import {
  ALICE,
  BOB,
  buttonValue,
  eventually,
  noteParts,
  SIGNING_SECRET,
  type Stack,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import type { FakeMessage, SlackFileObject } from "../../support/fake-slack/fake-slack-types.ts";
import {
  blockActionPayload,
  fileShareMessageEvent,
  messageActionPayload,
  messageEvent,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import { sendEnvelope } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * The ways in to notes besides an upload where automatic notes are on, through the real
 * app: the message shortcut "Make meeting notes" and "@Meeting Notes" said in a
 * recording's thread, in a channel that turned automatic notes off, on recordings posted
 * before the bot was there (a message with a file, no upload event ever sent).
 */
const QUIET = "C0WAYSQT01";
const NO_BOT = "C0WAYSNB01";
/** A guest, in no channel of these. */
const GUS = "U0WAYSGUS1";

let stack: Stack;
let kit: PayloadKit;
let team: string;
beforeAll(async () => {
  stack = await startStack();
  kit = new PayloadKit(stack);
  team = stack.fake.teamId;
  stack.fake.addUser({ id: GUS, name: "gus", real_name: "Gus Guest", is_restricted: true });
  stack.fake.addChannel({ id: QUIET, name: "quiet", members: [ALICE, BOB] });
  stack.fake.addChannel({ id: NO_BOT, name: "no-bot", members: [ALICE], is_member: false });
  await stack.app.jobs.settings.set(team, QUIET, { autoTranscribe: false });
});
afterAll(() => stack.stop());

/** Alice's recording posted in `channel` before the bot's install: a message, no event. */
function postedBefore(name: string, channel = QUIET, fill = 1) {
  const file = stack.fake.addFile({ name, bytes: recordingBytes(name, 2048, fill), user: ALICE });
  return { file, message: stack.fake.shareFile(file, { channel, user: ALICE }) };
}

/** A message ts a microsecond after `ts`. */
function later(ts: string): string {
  const micros = (BigInt(ts.replace(".", "")) + 1n).toString();
  return `${micros.slice(0, -6)}.${micros.slice(-6)}`;
}

/** A message as a shortcut's payload shows it (the Web API's shape: no `channel`). */
function shown(message: FakeMessage): Record<string, unknown> & { ts: string } {
  const { channel: _, ...rest } = message;
  return rest;
}

/** Someone uses "Make meeting notes" on `message`; returns its response_url. */
async function useShortcut(user: string, channel: string, message: Record<string, unknown>) {
  const responseUrl = stack.fake.responseUrl();
  const payload = messageActionPayload({
    callbackId: SHORTCUTS.makeNotes,
    user,
    channel,
    message: message as Record<string, unknown> & { ts: string },
    responseUrl,
  });
  expect(await stack.deliver.interaction(payload)).toMatchObject({
    acked: true,
    payload: undefined,
  });
  return responseUrl;
}

/** What the app posted to a response_url, once it did (and the app is quiet again). */
async function saidTo(responseUrl: string): Promise<string[]> {
  const id = responseUrl.slice(responseUrl.lastIndexOf("/") + 1);
  const posts = () => stack.fake.responseUrlPosts.filter((p) => p.id === id);
  await eventually(posts, (p) => p.length > 0);
  await stack.settled();
  return posts().map((p) => (p.body as { text: string }).text);
}

/** The new-notes modal opened since `from`, as the person sees it. */
async function modalSince(from: number) {
  return eventually(
    () => stack.fake.views.slice(from).findLast((v) => v.view.callback_id === VIEWS.newNotes),
    (v) => v !== undefined && JSON.stringify(v.view.blocks).includes('"type":"input"'),
    { what: "the new-notes modal, filled" },
  );
}

/** The input block `block` of a view. */
function blockOf(view: Record<string, unknown>, block: string) {
  const blocks = view.blocks as { block_id?: string; element?: Record<string, unknown> }[];
  return blocks.find((b) => b.block_id === block);
}

/** Submits the new-notes modal with its recording chosen and the destination as opened. */
function submitAsShown(view: { view_id: string; view: Record<string, unknown> }, user: string) {
  const recent = blockOf(view.view, INPUTS.recentRecording.block)?.element;
  const destination = blockOf(view.view, INPUTS.destination.block)?.element;
  const values = {
    [INPUTS.recentRecording.block]: {
      [INPUTS.recentRecording.action]: {
        type: "static_select",
        selected_option: recent?.initial_option,
      },
    },
    [INPUTS.language.block]: {
      [INPUTS.language.action]: { type: "static_select", selected_option: { value: "auto" } },
    },
    [INPUTS.destination.block]: {
      [INPUTS.destination.action]: {
        type: "conversations_select",
        selected_conversation: destination?.initial_conversation,
      },
    },
  };
  const payload = viewSubmissionPayload({
    callbackId: VIEWS.newNotes,
    privateMetadata: String(view.view.private_metadata),
    values,
    user,
    viewId: view.view_id,
  });
  return stack.deliver.interaction(payload);
}

/** The jobs of a recording in a channel. */
async function jobsOf(channel: string, file: SlackFileObject) {
  const jobs = await stack.app.jobs.service.listByChannel(team, channel);
  return jobs.filter((job) => job.source.fileId === file.id);
}

describe("the message shortcut Make meeting notes", () => {
  it("opens the modal on a recording posted before the install, and the notes land in its thread", async () => {
    const { file, message } = postedBefore("before-install.m4a");
    const views = stack.fake.views.length;
    const responseUrl = await useShortcut(ALICE, QUIET, shown(message));
    const opened = await modalSince(views);
    if (opened === undefined) throw new Error("no modal");
    // Opened filled (the look-ups answered within the trigger's time): the recording
    // chosen, the destination the message's channel, its thread kept for the submission.
    expect(opened.op).toBe("open");
    const recent = blockOf(opened.view, INPUTS.recentRecording.block)?.element;
    expect(recent?.initial_option).toMatchObject({ value: file.id });
    const destination = blockOf(opened.view, INPUTS.destination.block)?.element;
    expect(destination?.initial_conversation).toBe(QUIET);
    expect(JSON.parse(String(opened.view.private_metadata))).toMatchObject({
      channelId: QUIET,
      recent: [file.id],
      threadTs: message.ts,
    });

    expect((await submitAsShown(opened, ALICE)).payload).toBeUndefined();
    const status = await eventually(
      () => statusMessage(stack.fake.thread(QUIET, message.ts)),
      (m) => buttonValue(m, ACTIONS.skipNaming) !== undefined,
    );
    const skip = blockActionPayload({
      actionId: ACTIONS.skipNaming,
      value: buttonValue(status, ACTIONS.skipNaming) ?? "",
      user: ALICE,
      channel: QUIET,
      messageTs: status?.ts ?? "",
      threadTs: message.ts,
    });
    await stack.deliver.interaction(skip);
    await eventually(
      () => noteParts(stack.fake.thread(QUIET, message.ts)),
      (parts) => parts.length > 0,
    );
    const [job] = await jobsOf(QUIET, file);
    expect(job?.origin).toMatchObject({ channelId: QUIET, threadTs: message.ts, userId: ALICE });
    // No thread of the bot's own: the notes are in the message's thread only.
    const botParents = stack.fake
      .messages(QUIET)
      .filter((m) => m.bot_id !== undefined && m.thread_ts === undefined);
    expect(botParents).toEqual([]);
    expect(stack.fake.responseUrlPosts.filter((p) => responseUrl.endsWith(p.id))).toEqual([]);
  });

  it("says in one sentence that a message with only an image, or only text, holds no recording", async () => {
    const image = stack.fake.addFile({ name: "whiteboard.png", bytes: "png", user: ALICE });
    const withImage = stack.fake.shareFile(image, { channel: QUIET, user: ALICE });
    const views = stack.fake.views.length;
    const said = await saidTo(await useShortcut(ALICE, QUIET, shown(withImage)));
    expect(said).toEqual([
      "There is no recording in that message. Use Make meeting notes on a message with an audio or video file, or type /meeting-notes.",
    ]);
    // Slack's own published example: a message of text only.
    const responseUrl = stack.fake.responseUrl();
    const published = kit.object("interaction-message_action", {
      channel: QUIET,
      callbackId: SHORTCUTS.makeNotes,
      responseUrl,
    });
    expect((await stack.deliver.interaction(published)).acked).toBe(true);
    expect(await saidTo(responseUrl)).toEqual(said);
    expect(stack.fake.views.length).toBe(views);
    // Said with no look-up: nothing to ask Slack about an image.
    expect(stack.fake.callsTo("files.info").filter((c) => c.args.file === image.id)).toEqual([]);
  });

  it("names the next step for a recording the bot cannot read: share it again, or invite the bot", async () => {
    // A Slack Connect stub that files.info will not describe (Slack's published delivery).
    const stub = (
      kit.object("event-message-file_share-slack-connect-stub").event as {
        files: Record<string, unknown>[];
      }
    ).files;
    const connect = { type: "message", ts: "1700000000.000100", user: ALICE, files: stub };
    const views = stack.fake.views.length;
    expect(await saidTo(await useShortcut(ALICE, QUIET, connect))).toEqual([
      "I can't read the file shared here: Slack does not let me see it (shared from another organization, hidden by the workspace's file limit, or deleted). Download it and upload it here again, or send it with /meeting-notes.",
    ]);
    const { message } = postedBefore("no-bot.m4a", NO_BOT, 2);
    expect(await saidTo(await useShortcut(ALICE, NO_BOT, shown(message)))).toEqual([
      "I am not in this channel, so I cannot read that recording. Invite me (/invite @Meeting Notes) and try again.",
    ]);
    expect(stack.fake.views.length).toBe(views);
  });

  it("refuses a guest who cannot see the destination, as /meeting-notes does", async () => {
    const { file, message } = postedBefore("guest.m4a", QUIET, 3);
    const views = stack.fake.views.length;
    await useShortcut(GUS, QUIET, shown(message));
    const opened = await modalSince(views);
    if (opened === undefined) throw new Error("no modal");
    const answer = await submitAsShown(opened, GUS);
    expect(answer.payload).toMatchObject({
      response_action: "errors",
      errors: {
        [INPUTS.destination.block]: "Choose a conversation you are in.",
        [INPUTS.recentRecording.block]: expect.stringMatching(/your own recordings/),
      },
    });
    await stack.settled();
    expect(await jobsOf(QUIET, file)).toEqual([]);
    expect(stack.fake.thread(QUIET, message.ts)).toHaveLength(1);
  });

  it("reaches the app only as the installed manifest declares it", async () => {
    const { message } = postedBefore("undeclared.m4a", QUIET, 4);
    const payload = messageActionPayload({
      callbackId: "not_in_the_manifest",
      user: ALICE,
      channel: QUIET,
      message: shown(message),
    });
    await expect(stack.deliver.interaction(payload)).rejects.toThrow(
      /declares no message shortcut/,
    );
  });
});

describe("@Meeting Notes", () => {
  it("in a recording's thread starts one job, however often it is delivered or said", async () => {
    const { file, message } = postedBefore("mentioned.m4a", QUIET, 5);
    // Slack's published mention, by Bob, as a reply in the recording's thread (a reply is
    // later than its parent: a fresh ts of this very millisecond could equal it).
    const envelope = kit.object("event-message-mention-in-thread", {
      channel: QUIET,
      user: BOB,
      threadTs: message.ts,
      ts: later(message.ts),
    });
    expect((await sendEnvelope(stack.url, SIGNING_SECRET, envelope)).status).toBe(200);
    // Slack's retry of that delivery: the same event, signed anew.
    const retry = { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" };
    const timestamp = Math.floor(Date.now() / 1000) + 1;
    const again = await sendEnvelope(stack.url, SIGNING_SECRET, envelope, {
      timestamp,
      headers: retry,
    });
    expect(again.status).toBe(200);
    await eventually(
      () => statusMessage(stack.fake.thread(QUIET, message.ts)),
      (m) => m !== undefined,
    );
    // Alice says it too, in the same thread.
    const bot = stack.fake.botUserId;
    const text = `<@${bot}> notes please`;
    await stack.deliver.event(
      messageEvent({
        channel: QUIET,
        user: ALICE,
        text,
        ts: later(later(message.ts)),
        thread_ts: message.ts,
      }),
    );
    const told = await eventually(
      () => stack.fake.ephemerals.filter((e) => e.user === ALICE && e.channel === QUIET),
      (e) => e.length > 0,
    );
    await stack.settled();
    const jobs = await jobsOf(QUIET, file);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.origin).toMatchObject({ threadTs: message.ts, userId: BOB });
    expect(told.map((e) => e.text)).toEqual([
      expect.stringMatching(/^Notes for this recording are already being made in/),
    ]);
    expect(told[0]?.thread_ts).toBe(message.ts);
    expect(stack.fake.ephemerals.filter((e) => e.user === BOB)).toEqual([]);
  });

  it("with the upload itself starts the job where automatic notes are off", async () => {
    const file = stack.fake.addFile({
      name: "asked.m4a",
      bytes: recordingBytes("asked.m4a", 2048, 6),
      user: ALICE,
    });
    const text = `<@${stack.fake.botUserId}> notes please`;
    const posted = stack.fake.shareFile(file, { channel: QUIET, user: ALICE, text });
    const event = fileShareMessageEvent(file, { channel: QUIET, user: ALICE, text, ts: posted.ts });
    await stack.deliver.event(event);
    await eventually(
      () => statusMessage(stack.fake.thread(QUIET, posted.ts)),
      (m) => m !== undefined,
    );
    expect(await jobsOf(QUIET, file)).toHaveLength(1);
  });

  it("where there is no recording answers how to use the bot, to that person alone; the bot's own mention is ignored", async () => {
    const lunch = stack.fake.addMessage({ channel: QUIET, user: BOB, text: "Lunch at noon?" });
    const bot = stack.fake.botUserId;
    const from = stack.fake.ephemerals.length;
    const said = messageEvent({
      channel: QUIET,
      user: BOB,
      text: `<@${bot}>?`,
      ts: later(lunch.ts),
      thread_ts: lunch.ts,
    });
    await stack.deliver.event(said);
    const told = await eventually(
      () => stack.fake.ephemerals.slice(from),
      (e) => e.length > 0,
    );
    expect(told).toEqual([
      expect.objectContaining({ user: BOB, channel: QUIET, thread_ts: lunch.ts }),
    ]);
    expect(told[0]?.text).toBe("Here is how to get meeting notes from me:");
    const usage = JSON.stringify(told[0]?.blocks);
    for (const way of [
      "Upload a recording",
      "Mention me",
      "Make meeting notes",
      "/meeting-notes",
    ]) {
      expect(usage).toContain(way);
    }
    // The bot's own message mentioning itself, in a recording's thread: nothing.
    const { file, message } = postedBefore("own-mention.m4a", QUIET, 7);
    const own = messageEvent({
      channel: QUIET,
      user: bot,
      text: `<@${bot}>`,
      ts: later(message.ts),
      thread_ts: message.ts,
    });
    await stack.deliver.event({ ...own, bot_id: stack.fake.botId });
    await stack.settled();
    expect(await jobsOf(QUIET, file)).toEqual([]);
    expect(stack.fake.ephemerals.slice(from)).toHaveLength(1);
    expect(stack.fake.thread(QUIET, lunch.ts)).toHaveLength(1);
  });
});

it("sent the fixtures of the ways in through the app", () => {
  expect(WAYS_IN_FIXTURES.filter((name) => !kit.used.has(name))).toEqual([]);
});
