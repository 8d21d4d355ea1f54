import { describe, expect, it } from "vitest";
import {
  classifyFile,
  type SlackFile,
  shownNameOf,
  toSourceFile,
} from "../../src/slack/directory/recording-file.ts";

const file = (overrides: Partial<SlackFile>): SlackFile => ({
  id: "F0REC0001",
  size: 4096,
  url_private_download: "https://files.slack.com/files-pri/T1-F0REC0001/download/x",
  ...overrides,
});

describe("toSourceFile", () => {
  it.each([
    ["..%2F..\u202Eevil/3pm.m4a", "evil_3pm.m4a"],
    ["../../etc/standup.mp3", "etc_standup.mp3"],
    [".hidden.wav", "hidden.wav"],
    ["\u200Bweekly\u2066 sync\u2069.ogg", "weekly sync.ogg"],
    ["x\u0000\u0007.flac", "x.flac"],
  ])("gives the Note Service a safe name for %j: %j", (name, expected) => {
    expect(toSourceFile(file({ name }))?.filename).toBe(expected);
  });

  it("adds the format's extension to a safe stem, within 200 characters", () => {
    const source = toSourceFile(file({ name: `../${"a".repeat(300)}`, filetype: "m4a" }));
    expect(source?.filename).toBe(`${"a".repeat(196)}.m4a`);
    expect(toSourceFile(file({ name: "/", mimetype: "audio/mpeg" }))?.filename).toBe(
      "recording.mp3",
    );
    expect(toSourceFile(file({ name: "", title: "", filetype: "wav" }))?.filename).toBe(
      "F0REC0001.wav",
    );
  });

  it("still refuses what is not audio", () => {
    expect(toSourceFile(file({ name: "notes.txt" }))).toBeUndefined();
    expect(toSourceFile(file({ name: "m4a", mimetype: "text/plain" }))).toBeUndefined();
  });
});

describe("classifyFile", () => {
  const url = "https://files.slack.com/files-pri/T1-F0X/download/x";
  const kind = (overrides: Partial<SlackFile>) =>
    classifyFile({ id: "F0X", size: 4096, url_private_download: url, ...overrides }).kind;

  it.each([
    [{ name: "weekly.m4a" }, "recording"],
    [{ name: "voice", mimetype: "audio/x-aac" }, "recording"],
    [{ name: "memo", mimetype: "audio/vnd.wave" }, "recording"],
    [{ name: "clip", mimetype: "audio/mp4a-latm" }, "recording"],
    [{ name: "call", mimetype: "audio/x-mpeg-3" }, "recording"],
    [{ name: "interview.mov", mimetype: "video/quicktime" }, "media"],
    [{ name: "phone.amr" }, "media"],
    [{ name: "screen.mkv", mimetype: "" }, "media"],
    [{ name: "voice-memo", mimetype: "audio/x-caf" }, "media"],
    [{ name: "clip", filetype: "binary", media_display_type: "video" }, "media"],
    [{ name: "screenshot.png", mimetype: "image/png", filetype: "png" }, "other"],
    [{ name: "agenda.pdf", mimetype: "application/pdf" }, "other"],
    [{ name: "query.sql", mode: "snippet", filetype: "sql", mimetype: "text/plain" }, "other"],
    [{ name: "Roadmap", filetype: "quip", mode: "quip" }, "other"],
    [{ name: "archive.zip", mimetype: "application/zip" }, "other"],
    [{ name: "partner.m4a", file_access: "check_file_info" }, "unreadable"],
    [{ name: "old.mp3", mode: "hidden_by_limit" }, "unreadable"],
    [{ name: "gone.mp3", mode: "tombstone" }, "unreadable"],
  ] as [Partial<SlackFile>, string][])("%j is %s", (overrides, expected) => {
    expect(kind(overrides)).toBe(expected);
  });

  it("calls audio Slack gives no link for unreadable, not unusable", () => {
    expect(classifyFile({ id: "F0X", name: "talk.mov", mimetype: "video/quicktime" }).kind).toBe(
      "unreadable",
    );
  });
});

describe("shownNameOf", () => {
  it("names a file as Slack shows it, made safe, and never by its id", () => {
    expect(shownNameOf({ id: "F0X", name: "a.m4a", title: "Board call" })).toBe("Board call");
    expect(shownNameOf({ id: "F0X", name: "../\u202Eminutes.mov" })).toBe("minutes.mov");
    expect(shownNameOf({ id: "F0X", title: "  ", name: "" })).toBeUndefined();
  });
});
