import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SlackFile } from "../../../../src/slack/directory/recording-file.ts";
import {
  type SharedFiles,
  startRecordings,
} from "../../../../src/slack/listeners/events/start-recordings.ts";
import { buildFileNotices, type FileNotice } from "../../../../src/slack/views/thread-replies.ts";
import {
  ALICE,
  asRequest,
  BOT,
  buildListenerDeps,
  CHANNEL,
  fixtureIds,
  LAN,
  type ListenerKit,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";
import { loadObject } from "../../../fixtures/slack-payloads/index.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

const THREAD = "1700000400.000100";

/** The files of a published `file_share` delivery (their ids fresh, or `file` when given). */
function filesOf(name: string, file?: string): SlackFile[] {
  const ids = fixtureIds(file === undefined ? {} : { file });
  const envelope = loadObject(name, ids);
  return (envelope.event as { files: SlackFile[] }).files;
}

/** A file object as published, by fixture name, with fields changed. */
function fileFrom(name: string, changes: Partial<SlackFile> = {}): SlackFile {
  const [file] = filesOf(name);
  if (file === undefined) throw new Error(`${name} has no file`);
  return { ...file, ...changes };
}

/** A QuickTime movie: audio/video the Note Service does not take. */
const movie = () =>
  fileFrom("event-message-file_share-mp4", {
    id: "F0MOVIE001",
    name: "standup.mov",
    title: "standup.mov",
    filetype: "mov",
    mimetype: "video/quicktime",
  });
const recording = () => fileFrom("event-message-file_share-mp3");
const screenshot = () => fileFrom("event-message-file_share-image");

async function share(files: SlackFile[], changes: Partial<SharedFiles> = {}) {
  await asRequest(() =>
    startRecordings(kit.deps, {
      channelId: CHANNEL,
      userId: ALICE,
      threadTs: THREAD,
      text: undefined,
      files,
      ...changes,
    }),
  );
}

/** What the bot said in the upload's thread, for everyone. */
function threadReplies() {
  return kit.slack.chat.postMessage.mock.calls.map(([args]) => args);
}

function expectNotices(notices: FileNotice[], locale: "en" | "vi" = "en") {
  expect(threadReplies()).toEqual([
    { channel: CHANNEL, thread_ts: THREAD, ...buildFileNotices(notices, locale) },
  ]);
}

const channelJobs = () => kit.jobs.listByChannel(TEAM, CHANNEL);

describe("startRecordings", () => {
  it("stays quiet about a screenshot", async () => {
    await share([screenshot()]);
    expect(threadReplies()).toEqual([]);
    expect(await channelJobs()).toEqual([]);
  });

  it("answers about a screenshot when the message @mentions the bot", async () => {
    await share([screenshot()], { text: `<@${BOT}> notes please` });
    expectNotices([{ name: "file.png", reason: "unsupported_format" }]);
  });

  it("says once that a movie format is not taken without FFmpeg, however often Slack delivers it", async () => {
    await share([movie()]);
    await share([movie()]);
    expectNotices([{ name: "standup.mov", reason: "needs_ffmpeg" }]);
    expect(await channelJobs()).toEqual([]);
  });

  it("says once that a recording is too large, however often Slack delivers it", async () => {
    const huge = { ...recording(), id: "F0HUGE0001", size: 301 * 1024 * 1024 };
    await share([huge]);
    await share([huge]);
    expectNotices([{ name: "here we go again.mp3", reason: "too_large_needs_ffmpeg" }]);
  });

  it("with FFmpeg, takes a movie and a recording over 300 MB, and refuses one over 1 GB", async () => {
    await kit.close();
    kit = await buildListenerDeps({ canPrepare: true });
    const big = { ...recording(), id: "F0BIG00001", size: 350 * 1024 * 1024 };
    const huge = {
      ...recording(),
      id: "F0HUGE0001",
      name: "all day.mp3",
      title: "all day.mp3",
      size: 2 ** 30 + 1,
    };
    await share([movie(), big, huge]);
    const jobs = await channelJobs();
    // The movie keeps its name: people know it by it; the service gets `standup.ogg`.
    expect(jobs.map((job) => job.source.filename).sort()).toEqual([
      "here we go again.mp3",
      "standup.mov",
    ]);
    expectNotices([{ name: "all day.mp3", reason: "too_large_to_prepare" }]);
  });

  it("starts one job however often Slack delivers the upload", async () => {
    const mp3 = recording();
    await share([mp3]);
    await share([mp3]);
    expect((await channelJobs()).map((job) => job.source.fileId)).toEqual([mp3.id]);
    expect(threadReplies()).toEqual([]);
  });

  it("still starts recordings, and stays quiet otherwise, when Slack cannot say who the bot is", async () => {
    kit.slack.auth.test.mockRejectedValue(new Error("socket hang up"));
    await share([recording(), screenshot()], { text: `<@${BOT}> notes please` });
    expect(await channelJobs()).toHaveLength(1);
    expect(threadReplies()).toEqual([]);
  });

  it("answers in the sharer's language", async () => {
    await share([movie()], { userId: LAN });
    expectNotices([{ name: "standup.mov", reason: "needs_ffmpeg" }], "vi");
  });

  it("starts one job per recording and one reply for the rest of the upload", async () => {
    await share([recording(), movie(), screenshot()]);
    const jobs = await channelJobs();
    expect(jobs.map((job) => job.source.filename)).toEqual(["here we go again.mp3"]);
    expectNotices([{ name: "standup.mov", reason: "needs_ffmpeg" }]);
  });

  it("does nothing in a channel that turned automatic notes off", async () => {
    await kit.services.settings.set(TEAM, CHANNEL, { autoTranscribe: false });
    await share([recording(), movie()], { text: "the weekly sync" });
    expect(await channelJobs()).toEqual([]);
    expect(threadReplies()).toEqual([]);
  });

  it("takes an upload whose message mentions the bot even where automatic notes are off", async () => {
    await kit.services.settings.set(TEAM, CHANNEL, { autoTranscribe: false });
    await share([recording(), movie()], { text: `<@${BOT}> notes please` });
    const jobs = await channelJobs();
    expect(jobs.map((job) => job.source.filename)).toEqual(["here we go again.mp3"]);
    expect(jobs[0]?.options.contextText).toBe("notes please");
    expectNotices([{ name: "standup.mov", reason: "needs_ffmpeg" }]);
  });

  it("starts the job with the channel's settings and the upload's text after the channel's context", async () => {
    const docx = new Uint8Array([0x50, 0x4b, 3, 4, 1, 2, 3]);
    const scope = { teamId: TEAM, channelId: CHANNEL };
    const templateId = await kit.services.templates.save(scope, "minutes.docx", docx, {
      pinned: true,
    });
    await kit.services.settings.set(TEAM, CHANNEL, {
      autoTranscribe: true,
      languageHint: "vi",
      contextText: "Glossary: OKR = objectives and key results",
      templateId,
    });
    await share([recording()], { text: "  Agenda: Q3 planning  " });
    const [job] = await channelJobs();
    expect(job?.options).toEqual({
      contextText: "Glossary: OKR = objectives and key results\n\nAgenda: Q3 planning",
      languageHint: "vi",
      templateId,
    });
    expect(job?.origin).toEqual({
      teamId: TEAM,
      channelId: CHANNEL,
      threadTs: THREAD,
      userId: ALICE,
      locale: "en-US",
    });
  });

  it("never reacts to the bot's own upload", async () => {
    await share([recording(), movie()], { userId: BOT });
    expect(await channelJobs()).toEqual([]);
    expect(threadReplies()).toEqual([]);
    expect(kit.slack.users.info).not.toHaveBeenCalled();
  });

  it("skips a file the bot uploaded, even in someone's message that mentions it", async () => {
    const own = { ...movie(), user: BOT };
    await share([own, { ...recording(), user: BOT }], { text: `<@${BOT}> see this` });
    expect(await channelJobs()).toEqual([]);
    expect(threadReplies()).toEqual([]);
  });

  it("completes a Slack Connect stub with files.info and starts its job", async () => {
    const [stub] = filesOf("event-message-file_share-slack-connect-stub", "F0STUB0001");
    const [full] = filesOf("event-message-file_share-mp3", "F0STUB0001");
    kit.workspace.files.set("F0STUB0001", { ...full });
    await share(stub === undefined ? [] : [stub]);
    expect(kit.slack.files.info).toHaveBeenCalledWith({ file: "F0STUB0001" });
    expect((await channelJobs()).map((job) => job.source.fileId)).toEqual(["F0STUB0001"]);
  });

  it("says a file cannot be read when Slack will not describe a stub, or it was deleted", async () => {
    const [stub] = filesOf("event-message-file_share-slack-connect-stub");
    const tombstone = loadObject("file-tombstone") as SlackFile;
    await share(stub === undefined ? [tombstone] : [stub, tombstone]);
    expectNotices([
      { name: undefined, reason: "unreadable" },
      { name: undefined, reason: "unreadable" },
    ]);
    expect(JSON.stringify(threadReplies())).toContain("the file shared here");
  });

  it("still answers for the other files when one file's job cannot be started", async () => {
    vi.spyOn(kit.jobs, "startFromUpload").mockRejectedValueOnce(new Error("store unavailable"));
    await share([recording(), movie()]);
    expectNotices([{ name: "standup.mov", reason: "needs_ffmpeg" }]);
    expect(kit.logged("error")).toEqual(["could not take a shared file"]);
  });
});
