import { describe, expect, it } from "vitest";
import type { SlackFile } from "../../../src/slack/directory/recording-file.ts";
import {
  type DescribedFile,
  judgeRecordings,
  mayBeRecordings,
  shownFiles,
} from "../../../src/slack/listeners/message-recordings.ts";
import { fixtureIds } from "../../../support/helpers/listener-args.ts";
import { loadObject } from "../../fixtures/slack-payloads/index.ts";

/** The first file of a published `file_share` delivery, under `id`. */
function published(name: string, id: string): SlackFile {
  const event = loadObject(name, fixtureIds({ file: id })).event as { files: SlackFile[] };
  const [file] = event.files;
  if (file === undefined) throw new Error(`${name} has no file`);
  return file;
}

const mp3 = published("event-message-file_share-mp3", "F0MP3FILE1");
const image = published("event-message-file_share-image", "F0IMAGE001");
const stub = published("event-message-file_share-slack-connect-stub", "F0STUBFIL1");
const movie: SlackFile = {
  ...published("event-message-file_share-mp4", "F0MOVIE001"),
  name: "standup.mov",
  title: "standup.mov",
  filetype: "mov",
  mimetype: "video/quicktime",
};
const described = (file: SlackFile, as: SlackFile | undefined = file): DescribedFile => ({
  shown: file,
  file: as,
});

describe("what may be a recording in a message", () => {
  it("keeps audio, video and files Slack hides; an image is none", () => {
    const files = shownFiles([mp3, image, stub, movie, { no: "id" }]);
    expect(files.map((f) => f.id)).toEqual([mp3.id, image.id, stub.id, movie.id]);
    expect(mayBeRecordings(files, false).map((f) => f.id)).toEqual([mp3.id, stub.id, movie.id]);
  });
});

describe("judgeRecordings", () => {
  it("takes the recordings, once each, before any refusal", () => {
    const found = judgeRecordings([described(movie), described(mp3), described(mp3)], false);
    expect(found).toEqual({
      kind: "recordings",
      recordings: [{ source: expect.objectContaining({ fileId: mp3.id }), file: mp3 }],
    });
  });

  it("says why the first that looked like one is not: Slack refused it, or it needs FFmpeg", () => {
    expect(judgeRecordings([described(stub, undefined), described(movie)], false)).toEqual({
      kind: "refused",
      notice: { name: undefined, reason: "unreadable" },
    });
    expect(judgeRecordings([described(movie)], false)).toEqual({
      kind: "refused",
      notice: { name: "standup.mov", reason: "needs_ffmpeg" },
    });
    expect(judgeRecordings([described({ ...mp3, size: 0 })], false)).toMatchObject({
      kind: "refused",
      notice: { reason: "empty" },
    });
  });

  it("takes audio or video of any format where FFmpeg can prepare it", () => {
    expect(judgeRecordings([described(movie)], true)).toMatchObject({ kind: "recordings" });
  });

  it("reads what files.info says, not the message's copy", () => {
    // A stub in the message that Slack then describes in full.
    expect(judgeRecordings([described(stub, { ...mp3, id: stub.id })], false)).toMatchObject({
      kind: "recordings",
      recordings: [{ source: { fileId: stub.id } }],
    });
    // Audio by its name, an image by Slack's description: nothing to say.
    expect(judgeRecordings([described(mp3, image)], false)).toEqual({ kind: "none" });
  });
});
