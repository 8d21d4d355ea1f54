import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { audioFormatOf } from "../../src/recordings/index.ts";
import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  buttonValue,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import type { FakeMessage, SlackFileObject } from "../../support/fake-slack/fake-slack-types.ts";
import {
  blockActionPayload,
  fileShareMessageEvent,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import {
  sendAction,
  sendEvent,
  sendViewSubmission,
} from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * A good citizen in a busy channel: the bot never reacts to itself, says nothing about
 * files that are plainly not recordings, one sentence about media it cannot use, and
 * names a file as people see it — never by its Slack id.
 */
let stack: Stack;
beforeAll(async () => {
  // A bot without FFmpeg: what it cannot use gets its sentence (with FFmpeg a video is
  // prepared instead; prepare-recordings.test.ts).
  stack = await startStack({ FFMPEG_PATH: "/nonexistent/ffmpeg" });
});
afterAll(() => stack.stop());
beforeEach(() => stack.emulator.reset());

/**
 * Shares `files` in one message as Alice, with `text`; returns the message. `stub`: the
 * files are stubs Slack Connect sends (the fake keeps the message, not the files).
 */
async function share(files: SlackFileObject[], text = "", stub = false): Promise<FakeMessage> {
  const [first] = files;
  if (first === undefined) throw new Error("no file");
  const message = stub
    ? stack.fake.addMessage({ channel: CHANNEL, user: ALICE, text })
    : stack.fake.addMessage({ channel: CHANNEL, user: ALICE, text, files });
  const event = fileShareMessageEvent(first, {
    channel: CHANNEL,
    user: ALICE,
    text,
    ts: message.ts,
  });
  event.files = files;
  const sent = await sendEvent(stack.url, SIGNING_SECRET, event, { teamId: stack.fake.teamId });
  expect(sent.status).toBe(200);
  return message;
}

/** The bot's replies in a thread (anything it posted there but a job's messages). */
const botReplies = (ts: string) =>
  stack.thread(ts).filter((m) => m.bot_id !== undefined && m.metadata === undefined);

/**
 * Waits until the app has handled every event sent so far, so "no reply" is not just
 * "no reply yet": a recording shared after them gets its status message first.
 */
async function settled() {
  const { ts } = await shareRecording(stack, `marker-${Date.now()}.m4a`);
  await eventually(
    () => statusMessage(stack.thread(ts)),
    (m) => m !== undefined,
  );
}

/** A file Alice uploaded, with fields of Slack's other kinds (snippets, canvases) laid over. */
const file = (name: string, extra: Record<string, unknown> = {}): SlackFileObject =>
  ({
    ...stack.fake.addFile({
      name,
      // A recording has a real recording's head; other files are plain bytes.
      bytes: audioFormatOf(name) ? recordingBytes(name, 2048, 3) : Buffer.alloc(2048, 3),
      user: ALICE,
    }),
    ...extra,
  }) as SlackFileObject;

describe("quiet by default", () => {
  it("says nothing about a screenshot, a PDF, a snippet or a canvas", async () => {
    const shared = [
      await share([file("screenshot.png", { mimetype: "image/png", filetype: "png" })]),
      await share([file("agenda.pdf")]),
      await share([
        file("query.sql", { mode: "snippet", filetype: "sql", mimetype: "text/plain" }),
      ]),
      await share([
        file("Roadmap", { filetype: "quip", mimetype: "application/vnd.slack-docs", mode: "quip" }),
      ]),
    ];
    await settled();
    for (const message of shared) expect(botReplies(message.ts)).toEqual([]);
    expect(stack.fake.downloads.filter((d) => d.path.includes("screenshot"))).toEqual([]);
  });

  it("says one sentence about a video it cannot use and a recording over 300 MB", async () => {
    const mov = await share([file("interview.mov")]);
    const huge = await stack.temp.sparse("all-hands.mp3", 300 * 1024 * 1024 + 1);
    const big = await share([
      stack.fake.addFile({ name: "all-hands.mp3", path: huge, user: ALICE }),
    ]);
    const movReply = await eventually(
      () => botReplies(mov.ts),
      (r) => r.length > 0,
    );
    expect(movReply).toHaveLength(1);
    expect(movReply[0]?.text).toMatch(
      /^I can't convert interview\.mov because FFmpeg is not installed/,
    );
    const bigReply = await eventually(
      () => botReplies(big.ts),
      (r) => r.length > 0,
    );
    expect(bigReply[0]?.text).toMatch(/^all-hands\.mp3 is over 300 MB/);
    // Neither went to the Note Service (the earlier test's marker recording may, meanwhile).
    const submitted = stack.emulator.stats.audioSubmissions.map((s) => s.filename);
    expect(submitted.filter((name) => !name.startsWith("marker-"))).toEqual([]);
  });

  it("answers about an image when the message @mentions it", async () => {
    const message = await share(
      [file("whiteboard.jpg", { mimetype: "image/jpeg", filetype: "jpg" })],
      `<@${stack.fake.botUserId}> can you take this?`,
    );
    const reply = await eventually(
      () => botReplies(message.ts),
      (r) => r.length > 0,
    );
    expect(reply[0]?.text).toMatch(/^whiteboard\.jpg is not a recording I can use/);
  });

  it("takes the recording of a message with a PDF beside it, and says nothing of the PDF", async () => {
    const message = await share([file("agenda.pdf"), file("sync.mp3")]);
    await eventually(
      () => statusMessage(stack.thread(message.ts)),
      (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    );
    const names = stack.emulator.stats.audioSubmissions.map((s) => s.filename);
    expect(names.filter((n) => n === "sync.mp3")).toHaveLength(1);
    expect(names.filter((n) => n.includes("agenda"))).toEqual([]);
    expect(botReplies(message.ts)).toEqual([]);
  });

  it("says it cannot read a Slack Connect file, by its name and never by its id", async () => {
    const named = await share(
      [
        {
          id: "F0CONNECT1",
          name: "partner-call.m4a",
          title: "Partner call",
          mode: "file_access",
          file_access: "check_file_info",
          created: 0,
          timestamp: 0,
          user: "",
        } as unknown as SlackFileObject,
      ],
      "",
      true,
    );
    const reply = await eventually(
      () => botReplies(named.ts),
      (r) => r.length > 0,
    );
    expect(reply[0]?.text).toMatch(/^I can't read Partner call: .*upload it here again/);
    const bare = await share(
      [
        {
          id: "F0CONNECT2",
          mode: "file_access",
          file_access: "check_file_info",
          created: 0,
          timestamp: 0,
          user: "",
        } as unknown as SlackFileObject,
      ],
      "",
      true,
    );
    const bareReply = await eventually(
      () => botReplies(bare.ts),
      (r) => r.length > 0,
    );
    expect(bareReply[0]?.text).toMatch(/^I can't read the file shared here/);
    expect(bareReply[0]?.text).not.toContain("F0CONNECT2");
  });
});

describe("never about itself", () => {
  it("after a delivered note, its own DOCX share and messages start nothing and get no reply", async () => {
    const { ts } = await shareRecording(stack, "own-files.m4a");
    const naming = await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => buttonValue(m, ACTIONS.skipNaming) !== undefined,
    );
    const click = blockActionPayload({
      actionId: ACTIONS.skipNaming,
      value: buttonValue(naming, ACTIONS.skipNaming) ?? "",
      user: ALICE,
      channel: CHANNEL,
      messageTs: naming?.ts ?? "",
    });
    await sendAction(stack.url, SIGNING_SECRET, click);
    await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
    );
    const docx = stack.fake.messages(CHANNEL).find((m) => m.thread_ts === ts && m.files?.length);
    const docxFile = docx?.files?.[0];
    expect(docxFile?.user).toBe(stack.fake.botUserId);
    const replies = stack.thread(ts).length;
    const team = { teamId: stack.fake.teamId };
    // What Slack sends for the bot's own upload: file_shared (user_id is the bot) and the
    // file_share message; and a message event for each of its posts.
    await sendEvent(
      stack.url,
      SIGNING_SECRET,
      {
        type: "file_shared",
        channel_id: CHANNEL,
        file_id: docxFile?.id,
        user_id: stack.fake.botUserId,
        file: { id: docxFile?.id },
        event_ts: docx?.ts,
      },
      team,
    );
    const ownShare = fileShareMessageEvent(docxFile as SlackFileObject, {
      channel: CHANNEL,
      user: stack.fake.botUserId,
      ts: docx?.ts ?? "",
      thread_ts: ts,
    });
    await sendEvent(stack.url, SIGNING_SECRET, { ...ownShare, bot_id: stack.fake.botId }, team);
    for (const message of stack.thread(ts).filter((m) => m.bot_id !== undefined)) {
      const { channel: _, ...posted } = message;
      await sendEvent(
        stack.url,
        SIGNING_SECRET,
        { ...posted, channel: CHANNEL, event_ts: message.ts, channel_type: "channel" },
        team,
      );
    }
    await settled();
    expect(stack.thread(ts)).toHaveLength(replies);
    const docxId = docxFile?.id ?? "";
    expect(stack.fake.downloads.filter((d) => d.fileId === docxId)).toEqual([]);
    expect(stack.fake.callsTo("files.info").filter((c) => c.args.file === docxId)).toEqual([]);
    expect(stack.emulator.stats.audioSubmissions.map((a) => a.filename)).not.toContain(
      docxFile?.name,
    );
  });
});

describe("naming as people do it", () => {
  it("writes the note with a neutral label for the speaker left unnamed", async () => {
    stack.emulator.knobs.speakerCount = 3;
    const { ts } = await shareRecording(stack, "three-voices.m4a");
    const naming = await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    );
    const jobId = buttonValue(naming, ACTIONS.nameSpeakers) ?? "";
    const answer = await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({
        callbackId: VIEWS.speakerNames,
        privateMetadata: jobId,
        user: ALICE,
        values: {
          [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "Lan" } },
          // Slack sends an input left empty as null.
          [speakerBlock.name("speaker_2")]: { name: { type: "plain_text_input", value: null } },
          [speakerBlock.user("speaker_2")]: { user: { type: "users_select", selected_user: null } },
          [speakerBlock.name("speaker_3")]: { name: { type: "plain_text_input", value: "Lan" } },
        },
      }),
    );
    expect(answer.json).toBeUndefined();
    await eventually(
      () => stack.emulator.stats.noteSubmissions,
      (n) => n.length === 1,
    );
    expect(stack.emulator.stats.noteSubmissions[0]?.speakerMap).toEqual([
      { speaker_id: "speaker_1", name: "Lan" },
      { speaker_id: "speaker_2", name: "Speaker 2" },
      { speaker_id: "speaker_3", name: "Lan" },
    ]);
  });
});
