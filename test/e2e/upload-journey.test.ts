import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import { expectNoCapabilityInLog } from "../../support/e2e/log-secrets.ts";
import {
  ALICE,
  BOB,
  buttonOn,
  buttonValue,
  CHANNEL,
  clickButton,
  eventually,
  filledModal,
  markdownOf,
  noteParts,
  regenerateWithNames,
  SIGNING_SECRET,
  type Stack,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import {
  fileShareMessageEvent,
  viewSubmissionPayload,
} from "../../support/fake-slack/slack-payloads.ts";
import {
  redeliverEvent,
  sendEvent,
  sendViewSubmission,
} from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { liveMentions } from "../../support/helpers/reader-view.ts";
import { inlineValue, withValuesInline } from "../../support/helpers/stored-values.ts";

let stack: Stack;
beforeAll(async () => {
  // Without FFmpeg: the Note Service's own formats and cap (prepare-recordings.test.ts is
  // the journey of a recording FFmpeg prepares).
  stack = await startStack({ FFMPEG_PATH: "/nonexistent/ffmpeg" });
});
afterAll(() => stack.stop());
beforeEach(() => {
  stack.emulator.reset();
});

/** The text of a file the bot uploaded into the thread, by name. */
function uploaded(ts: string, filename: string): string {
  const file = stack.fake.uploads.find(
    (u) => u.thread_ts === ts && u.completed && u.filename === filename,
  );
  if (file?.data === undefined) throw new Error(`no upload named ${filename} in ${ts}`);
  return file.data.toString("utf8");
}

/** Alice uploads a recording with a message; returns the thread's ts. */
async function upload(name = "weekly-sync.m4a", text = "Q3 budget review") {
  const file = stack.fake.addFile({ name, bytes: recordingBytes(name), user: ALICE });
  const message = stack.fake.shareFile(file, { channel: CHANNEL, user: ALICE, text });
  const event = fileShareMessageEvent(file, {
    channel: CHANNEL,
    user: ALICE,
    text,
    ts: message.ts,
  });
  const sent = await sendEvent(stack.url, SIGNING_SECRET, event, { teamId: stack.fake.teamId });
  expect(sent.status).toBe(200);
  return { ts: message.ts, file, event, sent };
}

const done = (threadTs: string) =>
  eventually(
    () => statusMessage(stack.thread(threadTs)),
    (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
  );

describe("the upload journey", () => {
  it("is settled only once an acked upload's job is started and its recording submitted", async () => {
    // Slack's ack comes first; the job starts after it. settled() must wait for all of it,
    // or every "nothing more happened" check after it would pass for nothing.
    const { ts } = await upload("settles.m4a");
    await stack.settled();
    expect(statusMessage(stack.thread(ts))).toBeDefined();
    expect(stack.emulator.stats.audioSubmissions).toHaveLength(1);
    await buttonOn(stack, ts, ACTIONS.nameSpeakers);
  });

  it("answers in the thread at once, asks for names, and delivers the note and DOCX with them", async () => {
    stack.emulator.knobs.pollsToComplete = 3;
    const { ts } = await upload();
    const first = await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => m !== undefined,
    );
    expect(buttonValue(first, ACTIONS.cancel)).toBeDefined();
    const submitted = await eventually(
      () => stack.emulator.stats.audioSubmissions,
      (s) => s.length > 0,
    );
    expect(submitted[0]?.contextText).toBe("Q3 budget review");

    const { status, jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
    expect(buttonValue(status, ACTIONS.skipNaming)).toBe(jobId);
    expect(status?.text).toMatch(/2 speakers/);

    await clickButton(stack, ACTIONS.nameSpeakers, { jobId, statusTs: status?.ts ?? "" });
    const opened = await filledModal(stack, VIEWS.speakerNames);
    expect(opened?.view.private_metadata).toBe(jobId);
    const blockIds = ((opened?.view.blocks ?? []) as { block_id?: string }[]).map(
      (b) => b.block_id,
    );
    expect(blockIds).toContain(speakerBlock.user("speaker_1"));
    expect(blockIds).toContain(speakerBlock.name("speaker_2"));
    // Each speaker's quotes, read from their blob (the job record holds a reference).
    const shownText = JSON.stringify(opened?.view.blocks);
    expect(shownText.match(/> `\d{2}:\d{2}` \w/g)?.length).toBeGreaterThanOrEqual(2);
    expect(shownText).not.toContain("No quotes to show.");

    const values = {
      [speakerBlock.user("speaker_1")]: { user: { type: "users_select", selected_user: BOB } },
      [speakerBlock.name("speaker_2")]: { name: { type: "plain_text_input", value: "Minh Pham" } },
      [speakerBlock.gender("speaker_2")]: {
        gender: { type: "static_select", selected_option: { value: "male" } },
      },
    };
    const answer = await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({
        callbackId: VIEWS.speakerNames,
        privateMetadata: jobId,
        values,
        user: ALICE,
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toBeUndefined();

    const final = await done(ts);
    expect(final?.text).toMatch(/ready/i);
    const messages = stack.thread(ts);
    const parts = noteParts(messages);
    expect(parts.length).toBeGreaterThan(0);
    expect(markdownOf(parts)).toContain("Bob Tran");
    expect(markdownOf(parts)).toContain("Minh Pham");
    expect(stack.emulator.stats.noteSubmissions[0]?.speakerMap).toEqual([
      { speaker_id: "speaker_1", name: "Bob Tran" },
      { speaker_id: "speaker_2", name: "Minh Pham", gender: "male" },
    ]);
    const uploads = stack.fake.uploads.filter((u) => u.thread_ts === ts && u.completed);
    expect(uploads.map((u) => u.filename).sort()).toEqual([
      "weekly-sync - notes.docx",
      "weekly-sync - transcript.txt",
      "weekly-sync - transcript.vtt",
    ]);
    expect(uploads.find((u) => u.filename.endsWith(".docx"))?.bytes).toBeGreaterThan(1000);
    // The transcript names the speakers as chosen, a timestamp on every line.
    const transcript = uploaded(ts, "weekly-sync - transcript.txt").split("\n").filter(Boolean);
    expect(transcript.length).toBeGreaterThan(1);
    for (const line of transcript)
      expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] (Bob Tran|Minh Pham): \S/);
    expect(transcript.some((l) => l.includes("Bob Tran:"))).toBe(true);
    expect(transcript.some((l) => l.includes("Minh Pham:"))).toBe(true);
    expect(uploaded(ts, "weekly-sync - transcript.vtt")).toMatch(/^WEBVTT\n\n00:00:00\.000 --> /);
  });

  it("skips naming and still delivers", async () => {
    const { ts } = await upload("standup.mp3");
    const { status, jobId } = await buttonOn(stack, ts, ACTIONS.skipNaming);
    await clickButton(stack, ACTIONS.skipNaming, { jobId, statusTs: status?.ts ?? "" });
    await done(ts);
    expect(noteParts(stack.thread(ts)).length).toBeGreaterThan(0);
    // Skipped: every speaker keeps a neutral label in the clicker's language.
    expect(stack.emulator.stats.noteSubmissions[0]?.speakerMap).toEqual([
      { speaker_id: "speaker_1", name: "Speaker 1" },
      { speaker_id: "speaker_2", name: "Speaker 2" },
    ]);
  });

  it("makes one job of an upload Slack delivers twice and as a file_shared event", async () => {
    const { ts, file, sent } = await upload("retro.ogg");
    // Slack's retry: the same envelope, signed anew.
    expect((await redeliverEvent(stack.url, SIGNING_SECRET, sent, 1)).status).toBe(200);
    const shared = { type: "file_shared", channel_id: CHANNEL, file_id: file.id, user_id: ALICE };
    await sendEvent(stack.url, SIGNING_SECRET, shared, { teamId: stack.fake.teamId });
    await buttonOn(stack, ts, ACTIONS.nameSpeakers);
    await stack.settled();
    expect(stack.emulator.stats.audioSubmissions).toHaveLength(1);
    expect(
      stack.thread(ts).filter((m) => m.metadata?.event_payload.kind === "status"),
    ).toHaveLength(1);
  });

  it("refuses a .mov file and a recording over 300 MB with a reply and no API call", async () => {
    const mov = await upload("../\u202Eminutes.mov", "");
    const reply = await eventually(
      () => stack.thread(mov.ts).slice(1),
      (m) => m.length > 0,
    );
    // Named safely: no path, no right-to-left override.
    expect(reply[0]?.text).toMatch(/^I can't convert minutes\.mov because FFmpeg is not installed/);

    const huge = await stack.temp.sparse("all-hands.wav", 300 * 1024 * 1024 + 1);
    const file = stack.fake.addFile({ name: "all-hands.wav", path: huge, user: ALICE });
    const message = stack.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
    const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
    await sendEvent(stack.url, SIGNING_SECRET, event, { teamId: stack.fake.teamId });
    const refused = await eventually(
      () => stack.thread(message.ts).slice(1),
      (m) => m.length > 0,
    );
    expect(refused[0]?.text).toMatch(/over 300 MB/);
    expect(stack.emulator.stats.audioSubmissions).toHaveLength(0);
    expect(stack.fake.downloads.filter((d) => d.fileId === file.id)).toHaveLength(0);
  });

  it("takes the recordings of a several-file message and says nothing of the slides", async () => {
    const audio = stack.fake.addFile({
      name: "design-review.mp4",
      bytes: recordingBytes("design-review.mp4", 1024, 3),
      user: ALICE,
    });
    const slides = stack.fake.addFile({
      name: "slides.pdf",
      bytes: Buffer.alloc(100, 4),
      user: ALICE,
    });
    const message = stack.fake.shareFile(audio, { channel: CHANNEL, user: ALICE });
    const event = {
      ...fileShareMessageEvent(audio, { channel: CHANNEL, user: ALICE, ts: message.ts }),
    };
    event.files = [audio, slides];
    await sendEvent(stack.url, SIGNING_SECRET, event, { teamId: stack.fake.teamId });
    await buttonOn(stack, message.ts, ACTIONS.nameSpeakers);
    // The slides were handled before the recording's status reached naming: no reply.
    const replies = stack.thread(message.ts).filter((m) => m.metadata === undefined && m.bot_id);
    expect(replies).toEqual([]);
    expect(stack.emulator.stats.audioSubmissions).toHaveLength(1);
  });

  it("refuses a names submission for a job that is gone or no longer waiting", async () => {
    const values = {
      [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "X" } },
    };
    const answer = await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({
        callbackId: VIEWS.speakerNames,
        privateMetadata: "forged-job-id",
        values,
        user: ALICE,
      }),
    );
    expect(answer.json).toMatchObject({ response_action: "errors" });
    expect(JSON.stringify(answer.json)).toMatch(/no longer|not found|find/i);
  });

  it("says an admin must fix the configuration when the API key is refused", async () => {
    stack.emulator.knobs.faults = [{ match: "POST /audio2dialog", status: 401, count: 1 }];
    const { ts } = await upload("auth.mp3");
    const { status } = await buttonOn(stack, ts, ACTIONS.retry);
    expect(status?.text).toMatch(/admin/i);
  });

  it("shows a failed task's message with Retry", async () => {
    stack.emulator.knobs.failNextTasks = [
      { kind: "audio", message: "The audio track is corrupt." },
    ];
    const { ts } = await upload("broken.wav");
    const { status } = await buttonOn(stack, ts, ACTIONS.retry);
    expect(JSON.stringify(status?.blocks)).toContain("The audio track is corrupt.");
  });

  it("cancel stops the job", async () => {
    stack.emulator.knobs.pollsToComplete = 100_000;
    const { ts } = await upload("long-meeting.webm");
    const { status, jobId } = await buttonOn(stack, ts, ACTIONS.cancel);
    await eventually(
      () => stack.emulator.stats.polls.audio,
      (n) => n > 1,
    );
    await clickButton(stack, ACTIONS.cancel, { jobId, statusTs: status?.ts ?? "" });
    await eventually(
      () => stack.job(jobId),
      (job) => job?.stage === "canceled",
    );
    const polls = stack.emulator.stats.polls.audio;
    // Quiet: no job step running or due. A canceled job polls no more (one in flight at
    // the cancel may still land).
    await stack.settled();
    expect(stack.emulator.stats.polls.audio).toBeLessThanOrEqual(polls + 1);
    const final = await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => buttonValue(m, ACTIONS.cancel) === undefined,
    );
    expect(final?.text).toMatch(/cancel/i);
  });

  it("Regenerate with new names reruns only the note task", async () => {
    const { ts } = await upload("planning.flac");
    const { status, jobId } = await buttonOn(stack, ts, ACTIONS.skipNaming);
    await clickButton(stack, ACTIONS.skipNaming, { jobId, statusTs: status?.ts ?? "" });
    const ready = await done(ts);
    await regenerateWithNames(
      stack,
      { jobId, statusTs: ready?.ts ?? "" },
      { speaker_1: "Hoa Le", speaker_2: "Quang Do" },
    );
    await eventually(
      () => stack.fake.uploads.filter((u) => u.thread_ts === ts && u.completed && !u.deleted),
      (u) => u.some((f) => f.filename === "planning - transcript v2.vtt"),
    );
    await stack.settled();
    expect(stack.emulator.stats.audioSubmissions).toHaveLength(1);
    expect(stack.emulator.stats.noteSubmissions).toHaveLength(2);
    expect(markdownOf(noteParts(stack.thread(ts)))).toContain("Hoa Le");
    // The new note's DOCX, and the transcript replaced: the first one deleted, the new one
    // with the new names.
    const files = stack.fake.uploads.filter((u) => u.thread_ts === ts && u.completed);
    expect(
      files
        .filter((u) => !u.deleted)
        .map((u) => u.filename)
        .sort(),
    ).toEqual([
      "planning - notes v2.docx",
      "planning - notes.docx",
      "planning - transcript v2.txt",
      "planning - transcript v2.vtt",
    ]);
    expect(
      files
        .filter((u) => u.deleted)
        .map((u) => u.filename)
        .sort(),
    ).toEqual(["planning - transcript.txt", "planning - transcript.vtt"]);
    expect(uploaded(ts, "planning - transcript v2.txt")).toMatch(/\] (Hoa Le|Quang Do): /);
    expect(uploaded(ts, "planning - transcript v2.txt")).not.toMatch(/Speaker \d/);
  });

  it("delivers a 30,000-character note complete, in several parts", async () => {
    stack.emulator.knobs.noteMinChars = 30_000;
    const { ts } = await upload("quarterly.m4a");
    const { status, jobId } = await buttonOn(stack, ts, ACTIONS.skipNaming);
    await clickButton(stack, ACTIONS.skipNaming, { jobId, statusTs: status?.ts ?? "" });
    await done(ts);
    const parts = noteParts(stack.thread(ts));
    expect(parts.length).toBeGreaterThanOrEqual(3);
    const job = await stack.job(jobId);
    const read = job?.stage === "done" ? await withValuesInline(stack.app.store, job) : undefined;
    const markdown = read?.stage === "done" ? inlineValue(read.markdown) : "";
    expect(markdown.length).toBeGreaterThanOrEqual(30_000);
    const squash = (s: string) => s.replace(/\s+/g, "");
    expect(squash(markdownOf(parts))).toBe(squash(markdown));
    for (const part of parts) {
      const text = markdownOf([part]);
      expect(text.length).toBeLessThanOrEqual(12_000);
    }
  });

  it("pings nobody: <!channel> in the recording and a typed <@U123> name", async () => {
    stack.emulator.knobs.dialogText = "Heads up <!channel> and <!here>, budget first.";
    const { ts } = await upload("allhands.mp3", "agenda <!everyone>");
    const { status, jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
    const values = {
      [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "<@U123>" } },
      [speakerBlock.name("speaker_2")]: { name: { type: "plain_text_input", value: "Lan" } },
    };
    await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({
        callbackId: VIEWS.speakerNames,
        privateMetadata: jobId,
        values,
        user: ALICE,
      }),
    );
    await done(ts);
    expect(status).toBeDefined();
    const posted = stack.fake.calls
      .filter((c) => c.method === "chat.postMessage" || c.method === "chat.update")
      .filter((c) => c.args.channel === CHANNEL)
      .map((c) => JSON.stringify({ text: c.args.text, blocks: c.args.blocks }));
    const all = posted.join("\n");
    expect(all).toContain("U123");
    for (const live of ["<!channel>", "<!here>", "<!everyone>", "<@U123>"]) {
      expect(all).not.toContain(live);
    }
  });

  it("cleans a hostile file name and names, and posts a hostile note inert with its link targets shown", async () => {
    const RLO_USER = "U0RLO0001";
    stack.fake.addUser({ id: RLO_USER, name: "rlo", real_name: "\u202Enohtyp\u202C Lan\u200B" });
    stack.emulator.knobs.dialogText =
      "Budget &lt;!channel&gt; &#64;here, see [Quarterly report](https://evil.example/x) " +
      "and <https://evil.example/y|the minutes>.";
    const { ts } = await upload("..%2F..\u202Eevil/3pm.m4a");
    const [submitted] = await eventually(
      () => stack.emulator.stats.audioSubmissions,
      (s) => s.length > 0,
    );
    expect(submitted?.filename).toBe("evil_3pm.m4a");

    const { jobId } = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
    const values = {
      [speakerBlock.user("speaker_1")]: { user: { type: "users_select", selected_user: RLO_USER } },
      [speakerBlock.name("speaker_2")]: {
        name: { type: "plain_text_input", value: "Mi\u200Bnh\u2066" },
      },
    };
    const payload = viewSubmissionPayload({
      callbackId: VIEWS.speakerNames,
      privateMetadata: jobId,
      values,
      user: ALICE,
    });
    expect((await sendViewSubmission(stack.url, SIGNING_SECRET, payload)).status).toBe(200);
    await done(ts);

    expect(stack.emulator.stats.noteSubmissions[0]?.speakerMap).toEqual([
      { speaker_id: "speaker_1", name: "nohtyp Lan" },
      { speaker_id: "speaker_2", name: "Minh" },
    ]);
    const note = markdownOf(noteParts(stack.thread(ts)));
    expect(note).toContain("Quarterly report (https://evil.example/x)");
    expect(note).toContain("the minutes (https://evil.example/y)");
    // The emulator's action items quote the text cut at 80 characters: a `](` without its
    // `)` is not a link, and shows its target anyway.
    expect(note).not.toMatch(/\]\([^)\s]*\)|\|the minutes/);
    expect(liveMentions(note)).toEqual([]);
    // What the bot said about the file (status messages, posted and edited) names it safely.
    const said = stack.fake.calls
      .filter((c) => c.method === "chat.postMessage" || c.method === "chat.update")
      .map((c) => JSON.stringify(c.args))
      .filter((args) => args.includes("3pm"));
    expect(said.length).toBeGreaterThan(0);
    expect(said.join("\n")).toContain("evil_3pm.m4a");
    expect(said.join("\n")).not.toMatch(/[\u202E\u200B]|%2F/i);
    const docx = stack.fake.uploads.find((u) => u.thread_ts === ts && u.completed);
    expect(docx?.filename).toBe("evil_3pm - notes.docx");
  });

  // Runs last in this file: by now the log holds every line of all the journeys above.
  it("never writes a token, a trigger id, a response_url, the signing secret or the API key to the log", () => {
    expect(stack.logs.length).toBeGreaterThan(100);
    // Debug lines are in, the most talkative level.
    expectNoCapabilityInLog(stack.logs.join(""), {
      fake: stack.fake,
      secrets: [SIGNING_SECRET, ...stack.secrets()],
      handedOut: ["token", "trigger_id", "response_url"],
    });
  });
});
