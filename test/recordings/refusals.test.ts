import { describe, expect, it } from "vitest";
import type { SourceFile } from "../../src/jobs/index.ts";
import { checkRecording, MAX_AUDIO_BYTES, MAX_SOURCE_BYTES } from "../../src/recordings/index.ts";

const source = (filename: string, size: number): SourceFile => ({
  fileId: "F1",
  filename,
  size,
  downloadUrl: "https://files.slack.com/f",
});

describe("checkRecording", () => {
  it.each([
    // Without FFmpeg: the Note Service's own rules, and a word about FFmpeg where it would help.
    ["call.mp3", 1000, false, undefined],
    ["call.mp3", 0, false, "empty"],
    ["call.mp3", MAX_AUDIO_BYTES, false, undefined],
    ["call.mp3", MAX_AUDIO_BYTES + 1, false, "too_large_needs_ffmpeg"],
    ["standup.mov", 1000, false, "unsupported_format"],
    // With FFmpeg: any audio or video up to Slack's own 1 GB.
    ["standup.mov", 1000, true, undefined],
    ["call.mp3", MAX_AUDIO_BYTES + 1, true, undefined],
    ["meet.mp4", MAX_SOURCE_BYTES, true, undefined],
    ["meet.mp4", MAX_SOURCE_BYTES + 1, true, "too_large_to_prepare"],
    ["standup.mov", 0, true, "empty"],
  ] as const)("%s of %i bytes, FFmpeg %s: %s", (filename, size, canPrepare, refusal) => {
    expect(checkRecording(source(filename, size), canPrepare)).toBe(refusal);
  });
});
