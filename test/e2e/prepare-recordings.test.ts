import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_AUDIO_BYTES } from "../../src/recordings/index.ts";
import { ACTIONS } from "../../src/slack/ids.ts";
import {
  buttonOn,
  clickButton,
  eventually,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import {
  FFMPEG_AVAILABLE,
  ffmpeg,
  probe,
  processesMentioning,
} from "../../support/helpers/media-files.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/*
 * Recordings the Note Service would refuse as they are, made by FFmpeg here and prepared by
 * the bot's own FFmpeg: the service gets a supported audio file of the same length.
 */

describe.skipIf(!FFMPEG_AVAILABLE)("recordings made with FFmpeg (FFmpeg on PATH)", () => {
  let media: Awaited<ReturnType<typeof makeTempDir>>;
  let stack: Stack;
  const file = (name: string) => join(media.dir, name);
  const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

  beforeAll(async () => {
    media = await makeTempDir("mn-media-");
    const video = ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=15"];
    const voice = ["-f", "lavfi", "-i", "sine=f=220:r=44100"];
    await Promise.all([
      // An iPhone-style QuickTime movie with sound: 7.5 s.
      ffmpeg(
        ...video,
        ...voice,
        "-t",
        "7.5",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "aac",
        file("standup.mov"),
      ),
      // A screen recording in Matroska with Opus sound: 5 s.
      ffmpeg(
        ...video,
        ...voice,
        "-t",
        "5",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "libopus",
        file("screen.mkv"),
      ),
      // A movie without any sound.
      ffmpeg(...video, "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", file("silent.mov")),
      // About two seconds of noise video at top quality (~39 MB) with sound, looped below to
      // ~354 MB: a "350 MB" video, past the service's 300 MB.
      ffmpeg(
        "-f",
        "lavfi",
        "-i",
        "color=c=gray:s=1280x720:r=25,noise=alls=100:allf=t+u",
        ...voice,
        "-t",
        "2.04",
        "-c:v",
        "mjpeg",
        "-q:v",
        "1",
        "-c:a",
        "aac",
        "-shortest",
        file("clip.mp4"),
      ),
      // An hour of sound (10 s looped 360 times, copied): long enough to cancel mid-way.
      ffmpeg(...voice, "-t", "10", "-c:a", "libopus", "-b:a", "16k", file("ten.mka")),
    ]);
    await Promise.all([
      ffmpeg("-stream_loop", "8", "-i", file("clip.mp4"), "-c", "copy", file("all-hands.mp4")),
      ffmpeg("-stream_loop", "359", "-i", file("ten.mka"), "-c", "copy", file("offsite.mkv")),
    ]);
    stack = await startStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await media?.cleanup();
  });
  beforeEach(() => {
    stack.emulator.reset();
    stack.emulator.knobs.keepAudioIn = media.dir;
  });

  /** The recording the Note Service received for the job of this upload, once it has. */
  async function received() {
    const [submission] = await eventually(
      () => stack.emulator.stats.audioSubmissions,
      (list) => list.length === 1,
      // FFmpeg over 350 MB takes seconds alone and far longer beside another suite.
      { timeoutMs: 90_000 },
    );
    if (submission?.keptPath === undefined) throw new Error("the emulator kept no recording");
    return { ...submission, keptPath: submission.keptPath };
  }

  const tempFiles = () => readdir(join(stack.temp.dir, "tmp")).catch(() => []);

  /** The status message's text once it matches. */
  const statusText = (ts: string, pattern: RegExp) =>
    eventually(
      () => statusMessage(stack.thread(ts))?.text ?? "",
      (text) => pattern.test(text),
      { timeoutMs: 30_000 },
    );

  describe("a recording the Note Service would refuse as it is, with FFmpeg installed", () => {
    it.each([
      ["standup.mov", "standup.ogg"],
      ["screen.mkv", "screen.ogg"],
    ])("%s is prepared: the service gets %s, as long as the source (± 1 s)", async (name, sent) => {
      await shareRecording(stack, name, { path: file(name) });
      const submission = await received();
      expect(submission.filename).toBe(sent);
      const [source, audio] = await Promise.all([probe(file(name)), probe(submission.keptPath)]);
      expect(source.streams).toContain("video");
      expect(audio.streams).toEqual(["audio"]);
      expect(Math.abs(audio.duration - source.duration)).toBeLessThanOrEqual(1);
      // The download and the prepared audio are gone once the service has it.
      await stack.settled();
      expect(await tempFiles()).toEqual([]);
    });

    it("makes a video of over 300 MB an upload far under the service's cap", async () => {
      const source = await stat(file("all-hands.mp4"));
      expect(source.size).toBeGreaterThanOrEqual(350_000_000);
      const { ts } = await shareRecording(stack, "all-hands.mp4", { path: file("all-hands.mp4") });
      const submission = await received();
      expect(submission).toMatchObject({ filename: "all-hands.ogg" });
      expect(submission.bytes).toBeLessThan(MAX_AUDIO_BYTES);
      const [video, audio] = await Promise.all([
        probe(file("all-hands.mp4")),
        probe(submission.keptPath),
      ]);
      expect(Math.abs(audio.duration - video.duration)).toBeLessThanOrEqual(1);
      // The status message showed the stage people waited in.
      expect(
        stack.fake.calls.some((c) =>
          /Taking the sound out of all-hands\.mp4/.test(JSON.stringify(c)),
        ),
      ).toBe(true);
      expect(ts).toBeTruthy();
    }, 120_000);

    it("says in one sentence that a video without sound has none, and sends nothing", async () => {
      const { ts } = await shareRecording(stack, "silent.mov", { path: file("silent.mov") });
      expect(await statusText(ts, /no sound/)).toBe(
        "silent.mov has no sound, so there is nothing to make notes from.",
      );
      expect(stack.emulator.stats.audioSubmissions).toEqual([]);
      await stack.settled();
      expect(await tempFiles()).toEqual([]);
    });

    it("prepares a recording whose name says wav but whose bytes are AIFF", async () => {
      const bytes = await readFile(join(import.meta.dirname, "../fixtures/audio/tone.aiff"));
      await shareRecording(stack, "board.wav", { bytes });
      const submission = await received();
      expect(submission.filename).toBe("board.ogg");
      expect((await probe(submission.keptPath)).streams).toEqual(["audio"]);
    });

    it("relays an mp3 under the cap byte for byte (SHA-256), untouched by FFmpeg", async () => {
      const bytes = recordingBytes("weekly.mp3", 3 * 1024 * 1024);
      await shareRecording(stack, "weekly.mp3", { bytes });
      const submission = await received();
      expect(submission).toMatchObject({ filename: "weekly.mp3", bytes: bytes.length });
      expect(submission.sha256).toBe(sha256(bytes));
      expect(sha256(await readFile(submission.keptPath))).toBe(sha256(bytes));
    });

    it("stops FFmpeg at once on Cancel and leaves no process and no temp file", async () => {
      const { ts } = await shareRecording(stack, "offsite.mkv", { path: file("offsite.mkv") });
      // FFmpeg is running on this stack's temp folder…
      await eventually(
        () => processesMentioning(stack.temp.dir),
        (found) => found.some((line) => /ffmpeg/.test(line) && /prepared/.test(line)),
        { timeoutMs: 20_000 },
      );
      await statusText(ts, /Taking the sound out of offsite\.mkv/);
      const at = await buttonOn(stack, ts, ACTIONS.cancel);
      await clickButton(stack, ACTIONS.cancel, at);
      await statusText(ts, /Canceled/);
      await stack.settled();
      // …and once canceled, nothing of it is left.
      expect(await processesMentioning(stack.temp.dir)).toEqual([]);
      expect(await tempFiles()).toEqual([]);
      expect(stack.emulator.stats.audioSubmissions).toEqual([]);
    });
  });

  describe("without FFmpeg", () => {
    let bare: Stack;
    beforeAll(async () => {
      bare = await startStack({ FFMPEG_PATH: join(media.dir, "no-ffmpeg-here") });
    });
    afterAll(() => bare?.stop());

    /** The bot's one reply in the upload's thread. */
    const reply = (ts: string) =>
      eventually(
        () => bare.thread(ts).find((m) => m.user === bare.fake.botUserId && m.ts !== ts)?.text,
        (text) => text !== undefined,
      );

    it("refuses a movie as before, saying FFmpeg would take it, and starts nothing", async () => {
      const { ts } = await shareRecording(bare, "standup.mov", { path: file("standup.mov") });
      expect(await reply(ts)).toBe(
        "I can't convert standup.mov because FFmpeg is not installed where I run (your admin can add it), so upload one of these formats: mp3, mp4, wav, m4a, ogg, flac, aac, opus, webm.",
      );
      await bare.settled();
      expect(await bare.app.jobs.service.listByChannel(bare.fake.teamId, "C0E2E0001")).toEqual([]);
      expect(bare.fake.downloads).toEqual([]);
    });

    it("refuses a recording over 300 MB as before", async () => {
      const { ts } = await shareRecording(bare, "all-hands.mp4", { path: file("all-hands.mp4") });
      expect(await reply(ts)).toMatch(
        /^all-hands\.mp4 is over 300 MB, the most the Note Service takes/,
      );
      expect(bare.fake.downloads).toEqual([]);
    });

    it("still takes a recording the service takes, byte for byte", async () => {
      bare.emulator.reset();
      const bytes = recordingBytes("retro.m4a", 64 * 1024);
      await shareRecording(bare, "retro.m4a", { bytes });
      const [submission] = await eventually(
        () => bare.emulator.stats.audioSubmissions,
        (list) => list.length === 1,
      );
      expect(submission?.sha256).toBe(sha256(bytes));
    });
  });
});
