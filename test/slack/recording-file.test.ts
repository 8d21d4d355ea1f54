import { describe, expect, it } from "vitest";
import { type SlackFile, toSourceFile } from "../../src/slack/recording-file.ts";

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
