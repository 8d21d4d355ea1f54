import { existsSync } from "node:fs";
import { chmod, copyFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { positionUsOf } from "../../src/media/ffmpeg.ts";
import { createPreparer } from "../../src/media/preparer.ts";
import { findMediaTools, type MediaTools } from "../../src/media/tools.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import {
  FFMPEG_AVAILABLE,
  ffmpeg,
  probe,
  processesMentioning,
} from "../../support/helpers/media-files.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

describe("findMediaTools with programs that answer slowly or not at all", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeAll(async () => {
    temp = await makeTempDir("mn-tools-");
  });
  afterAll(() => temp.cleanup());
  const program = async (name: string, body: string) => {
    const file = join(temp.dir, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o755);
    return file;
  };

  it("takes a program that started and did not answer in time for a slow one, not a missing one", async () => {
    // A loaded machine: the check's time runs out while the program is still starting.
    const ffmpegPath = await program("ffmpeg", "exec sleep 29.0917");
    await program("ffprobe", "exec sleep 29.0917");
    const found = await findMediaTools({ ffmpegPath, checkTimeoutMs: 200 });
    expect(found).toMatchObject({
      ffmpeg: ffmpegPath,
      version: expect.stringMatching(/over 200 ms/),
    });
    expect(await processesMentioning("29.0917")).toEqual([]);
  });

  it("finds nothing where the program fails its check", async () => {
    const ffmpegPath = await program("failing-ffmpeg", "exit 1");
    const ffprobePath = await program("failing-ffprobe", "exit 1");
    expect(
      await findMediaTools({ ffmpegPath, ffprobePath, checkTimeoutMs: 5_000 }),
    ).toBeUndefined();
  });
});

describe.skipIf(!FFMPEG_AVAILABLE)("FFmpeg (on PATH)", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let tools: MediaTools;
  const logger = pino({ level: "silent" });
  const path = (name: string) => join(temp.dir, name);

  beforeAll(async () => {
    temp = await makeTempDir("mn-preparer-");
    const found = await findMediaTools({});
    if (found === undefined)
      throw new Error("FFmpeg is needed for these tests (apt-get install ffmpeg)");
    tools = found;
    const video = ["-f", "lavfi", "-i", "testsrc2=s=160x120:r=10"];
    await Promise.all([
      ffmpeg(
        ...video,
        "-f",
        "lavfi",
        "-i",
        "sine=f=300",
        "-t",
        "4",
        "-c:v",
        "libx264",
        "-c:a",
        "aac",
        path("talk.mov"),
      ),
      ffmpeg(...video, "-t", "2", "-c:v", "libx264", path("mute.mov")),
      ffmpeg("-f", "lavfi", "-i", "sine=f=300", "-t", "300", "-c:a", "flac", path("long.flac")),
    ]);
    await writeFile(path("notes.mov"), "These are not the minutes you are looking for.\n");
  });
  afterAll(() => temp.cleanup());

  describe("findMediaTools", () => {
    it("finds FFmpeg on PATH, and nothing where FFMPEG_PATH points at no program", async () => {
      expect(tools.version).toMatch(/^ffmpeg version/);
      expect(await findMediaTools({ ffmpegPath: path("missing/ffmpeg") })).toBeUndefined();
      expect(await findMediaTools({ ffprobePath: path("missing/ffprobe") })).toBeUndefined();
    });
  });

  describe("the preparer", () => {
    const preparer = (timeoutMs = 60_000) =>
      createPreparer(tools, { concurrency: 1, timeoutMs, maxHours: 8, logger });
    const signal = () => new AbortController().signal;

    it("extracts mono speech as Ogg Opus, as long as the source, reporting progress up to 1", async () => {
      const fractions: number[] = [];
      const outcome = await preparer().prepare({
        input: path("talk.mov"),
        demuxer: "mov",
        output: path("talk.ogg"),
        signal: signal(),
        onProgress: (f) => fractions.push(f),
      });
      expect(outcome).toEqual({ ok: true });
      const out = await probe(path("talk.ogg"));
      expect(out.streams).toEqual(["audio"]);
      expect(Math.abs(out.duration - 4)).toBeLessThanOrEqual(0.2);
      expect(fractions.at(-1)).toBe(1);
      expect([...fractions].sort((a, b) => a - b)).toEqual(fractions);
    });

    it("says a video has no sound, and a file FFmpeg cannot read is unreadable", async () => {
      const p = preparer();
      const run = (input: string) =>
        p.prepare({
          input,
          demuxer: "mov",
          output: path("out.ogg"),
          signal: signal(),
          onProgress: () => {},
        });
      expect(await run(path("mute.mov"))).toEqual({ ok: false, reason: "no_sound" });
      expect(await run(path("notes.mov"))).toEqual({ ok: false, reason: "prepare_failed" });
    });

    it("kills FFmpeg past its time limit", async () => {
      const outcome = await preparer(50).prepare({
        input: path("long.flac"),
        demuxer: "flac",
        output: path("long-timeout.ogg"),
        signal: signal(),
        onProgress: () => {},
      });
      expect(outcome).toMatchObject({ ok: false, reason: "timeout" });
      expect(await processesMentioning(path("long-timeout.ogg"))).toEqual([]);
    });

    it("kills FFmpeg at once on abort and rejects with the abort's reason", async () => {
      const controller = new AbortController();
      const running = preparer().prepare({
        input: path("long.flac"),
        demuxer: "flac",
        output: path("long-abort.ogg"),
        signal: controller.signal,
        onProgress: () => controller.abort(new Error("canceled by Bob")),
      });
      await expect(running).rejects.toThrow("canceled by Bob");
      expect(await processesMentioning(path("long-abort.ogg"))).toEqual([]);
    });

    it("rejects an abort only once FFmpeg has ended, though its slot let go at once", async () => {
      // An FFmpeg that is killed while something it started still holds its output: its end
      // (the pipes closed) comes half a second after the kill, and leaves a mark.
      const ended = path("fake-ffmpeg-ended");
      const started = path("fake-ffmpeg-started");
      const fake = path("fake-ffmpeg");
      await writeFile(
        fake,
        [
          "#!/bin/sh",
          'case " $* " in *" -version "*) echo "ffmpeg version fake"; exit 0 ;; esac',
          `(sleep 0.5; touch ${ended}) &`,
          `touch ${started}`,
          "exec sleep 30",
        ].join("\n"),
        { mode: 0o755 },
      );
      const slow = await findMediaTools({ ffmpegPath: fake, ffprobePath: tools.ffprobe });
      if (slow === undefined) throw new Error("the fake FFmpeg does not run");
      const controller = new AbortController();
      const running = createPreparer(slow, {
        concurrency: 1,
        timeoutMs: 60_000,
        maxHours: 8,
        logger,
      }).prepare({
        input: path("long.flac"),
        demuxer: "flac",
        output: path("fake.ogg"),
        signal: controller.signal,
        onProgress: () => {},
      });
      await eventually(
        () => existsSync(started),
        (yes) => yes,
        { what: "the fake FFmpeg started" },
      );
      controller.abort(new Error("canceled by Bob"));
      await expect(running).rejects.toThrow("canceled by Bob");
      // The caller removes the job's files next: nothing of FFmpeg may be running by then.
      expect(existsSync(ended)).toBe(true);
    });

    it("runs one FFmpeg at a time by default: the second waits for the first", async () => {
      await copyFile(path("talk.mov"), path("talk-2.mov"));
      const p = preparer();
      // Whenever the first reports progress, nothing runs on the second's file yet. A look
      // at the processes ends after the progress report: one that ends after the first
      // FFmpeg did says nothing (the second may rightly have started by then).
      const seenWhileFirst: string[] = [];
      let firstDone = false;
      // The first is five minutes of sound: it reports progress several times.
      const first = p
        .prepare({
          input: path("long.flac"),
          demuxer: "flac",
          output: path("first.ogg"),
          signal: signal(),
          onProgress: () => {
            void processesMentioning(path("talk-2.mov")).then((found) => {
              if (!firstDone) seenWhileFirst.push(...found);
            });
          },
        })
        .finally(() => {
          firstDone = true;
        });
      const second = p.prepare({
        input: path("talk-2.mov"),
        demuxer: "mov",
        output: path("second.ogg"),
        signal: signal(),
        onProgress: () => {},
      });
      expect(await Promise.all([first, second])).toEqual([{ ok: true }, { ok: true }]);
      expect(seenWhileFirst).toEqual([]);
      // Two encodes one after the other: a ceiling for a machine that runs other suites too.
    }, 60_000);
  });
});

describe("positionUsOf", () => {
  it("reads FFmpeg's -progress position and nothing else", () => {
    expect(positionUsOf("out_time_us=1500000")).toBe(1_500_000);
    expect(positionUsOf("out_time_us=N/A")).toBeUndefined();
    expect(positionUsOf("out_time_ms=1500000")).toBeUndefined();
    expect(positionUsOf("progress=end")).toBeUndefined();
  });
});
