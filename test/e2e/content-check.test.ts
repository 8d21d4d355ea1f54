import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  eventually,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";

const FIXTURES = join(import.meta.dirname, "../fixtures/audio");
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const VIET = "U0VIET001";

let stack: Stack;
beforeAll(async () => {
  // Without FFmpeg: a container the Note Service does not take is refused, as it is where
  // FFmpeg is not installed (prepare-recordings.test.ts: with it, such a file is prepared).
  stack = await startStack({ FFMPEG_PATH: "/nonexistent/ffmpeg" });
  stack.fake.addUser({ id: VIET, name: "lan", real_name: "Lan Pham", locale: "vi-VN" });
});
afterAll(() => stack.stop());
beforeEach(() => {
  stack.emulator.reset();
});

/** The status message's text once the job has failed (it has no button then). */
const failedStatus = (ts: string) =>
  eventually(
    () => statusMessage(stack.thread(ts))?.text ?? "",
    (text) => /audio recording|bản ghi âm|format/.test(text),
  );

/** Whether the fake Slack served the file's bytes to the app. */
const downloaded = (fileId: string) =>
  stack.fake.downloads.some((d) => d.fileId === fileId && d.served);

const tempFiles = () => readdir(join(stack.temp.dir, "tmp")).catch(() => []);

describe("a shared file whose bytes are not a recording", () => {
  it("gets one sentence in its thread after its download, and the Note Service gets nothing", async () => {
    const { ts, file } = await shareRecording(stack, "notes.mp3", { bytes: fixture("notes.txt") });
    expect(await failedStatus(ts)).toBe(
      "notes.mp3 isn't an audio recording, so I can't make notes from it.",
    );
    expect(downloaded(file.id)).toBe(true);
    expect(stack.emulator.stats.audioSubmissions).toEqual([]);
    expect(stack.emulator.stats.requests).toEqual([]);
    // The downloaded copy is not left on disk.
    expect(await tempFiles()).toEqual([]);
    // One sentence and nothing to click: a retry would download the same bytes.
    expect(statusMessage(stack.thread(ts))?.blocks).not.toContainEqual(
      expect.objectContaining({ type: "actions" }),
    );
  });

  it("is told in Vietnamese to someone whose Slack is in Vietnamese", async () => {
    const { ts } = await shareRecording(stack, "biên-bản.m4a", {
      bytes: fixture("agenda.pdf"),
      user: VIET,
    });
    expect(await failedStatus(ts)).toBe(
      "biên-bản.m4a không phải là bản ghi âm, nên tôi không thể tạo biên bản từ tệp này.",
    );
    expect(stack.emulator.stats.audioSubmissions).toEqual([]);
  });

  it("says which format a real recording in a container the Note Service does not take is", async () => {
    const { ts } = await shareRecording(stack, "board.wav", { bytes: fixture("tone.aiff") });
    expect(await failedStatus(ts)).toMatch(
      /^board\.wav is really AIFF, a format the Note Service doesn't take: save it as one of mp3, /,
    );
    expect(stack.emulator.stats.audioSubmissions).toEqual([]);
  });

  it("lets a real recording through, byte for byte", async () => {
    const bytes = fixture("tone.ogg");
    await shareRecording(stack, "retro.ogg", { bytes });
    const submitted = await eventually(
      () => stack.emulator.stats.audioSubmissions,
      (list) => list.length === 1,
    );
    expect(submitted[0]).toMatchObject({
      filename: "retro.ogg",
      bytes: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
    });
  });
});
