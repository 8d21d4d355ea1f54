import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileReader } from "../../src/jobs/files/job-files.ts";
import type { MediaPort } from "../../src/jobs/index.ts";
import { createPreparer } from "../../src/media/preparer.ts";
import { ADDRESS_SPACE_BYTES, findMediaTools, type MediaTools } from "../../src/media/tools.ts";
import { demuxerOf, sniffRecording } from "../../src/recordings/index.ts";
import {
  concatList,
  hlsPlaylist,
  id3Prefixed,
  m4aClaiming,
  measuredTools,
  tone,
  toneShares,
} from "../../support/helpers/hostile-media.ts";
import { FFMPEG_AVAILABLE } from "../../support/helpers/media-files.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/*
 * FFmpeg itself, given hostile files directly (the bot's sniffer stands before it; these
 * show that FFmpeg holds even where the sniffer would be wrong): it reads one file through
 * the one demuxer it is told, in bounded memory, with nothing of the bot's environment.
 */

const VICTIM_HZ = 1000;
const OWN_HZ = 440;

describe.skipIf(!FFMPEG_AVAILABLE)("FFmpeg on a hostile upload", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let tools: MediaTools;
  let media: MediaPort;
  /** A job's folder, holding the attacker's upload; the victim's job folder beside it. */
  let own: string;
  let victim: string;
  const signal = () => new AbortController().signal;
  const prepare = (input: string, demuxer: string, output = join(own, "prepared.ogg")) =>
    media.prepare({ input, demuxer, output, signal: signal(), onProgress: () => {} });

  beforeAll(async () => {
    temp = await makeTempDir("mn-hostile-media-");
    const found = await findMediaTools({});
    if (found === undefined) throw new Error("FFmpeg is needed for these tests");
    tools = found;
    media = createPreparer(tools, {
      concurrency: 1,
      timeoutMs: 60_000,
      maxHours: 8,
      logger: pino({ level: "silent" }),
    });
    own = join(temp.dir, "jobs", "job-attacker");
    victim = join(temp.dir, "jobs", "job-victim");
    await mkdir(own, { recursive: true });
    await mkdir(victim, { recursive: true });
    await tone(join(victim, "source.mp3"), VICTIM_HZ, 9, "-c:a", "libmp3lame");
    await copyFile(join(victim, "source.mp3"), join(temp.dir, "jobs", "job-old.mp3"));
  }, 60_000);
  afterAll(() => temp.cleanup());

  it.each([
    ["a concat list naming the victim's file by an absolute path", "mp3"],
    ["a concat list naming the victim's file by a relative path", "mov"],
    ["an HLS playlist naming the victim's file", "mp3"],
    ["an HLS playlist climbing to an earlier version's file", "aac"],
  ])("reads nothing but %s itself, whatever demuxer it is given", async (what, demuxer) => {
    const body = what.startsWith("a concat")
      ? concatList([
          what.includes("absolute") ? join(victim, "source.mp3") : "../job-victim/source.mp3",
        ])
      : hlsPlaylist([what.includes("climbing") ? "../job-old.mp3" : join(victim, "source.mp3")]);
    const input = join(own, "source.audio");
    await writeFile(input, id3Prefixed(body));
    const outcome = await prepare(input, demuxer);
    // FFmpeg read the bytes as the demuxer it was told and found no sound in them.
    expect(outcome.ok).toBe(false);
    await expect(stat(join(own, "prepared.ogg"))).rejects.toThrow();
  });

  it("prepares an ID3 tag followed by ADTS frames with the demuxer its bytes are", async () => {
    const aac = join(temp.dir, "plain.aac");
    await tone(aac, OWN_HZ, 2, "-c:a", "aac", "-f", "adts");
    const input = join(own, "tagged.aac");
    await writeFile(input, id3Prefixed(await readFile(aac)));
    const demuxer = demuxerOf(await sniffRecording(fileReader(input)));
    expect(demuxer).toBe("aac");
    const output = join(own, "tagged.ogg");
    expect(await prepare(input, demuxer ?? "", output)).toEqual({ ok: true });
    const shares = await toneShares(output, [OWN_HZ, VICTIM_HZ]);
    expect(shares.get(OWN_HZ)).toBeGreaterThan(0.5);
    expect(shares.get(VICTIM_HZ)).toBeLessThan(0.01);
  });

  it("refuses a file declaring 100 hours before FFmpeg decodes any of it", async () => {
    const input = join(own, "long.m4a");
    await m4aClaiming(input, 100);
    const measured = await measuredTools(join(temp.dir, "measured-long"), []);
    const found = await findMediaTools({ ffmpegPath: measured.ffmpegPath });
    if (found === undefined) throw new Error("the measuring wrappers do not run");
    const outcome = await createPreparer(found, {
      concurrency: 1,
      timeoutMs: 60_000,
      maxHours: 8,
      logger: pino({ level: "silent" }),
    }).prepare({
      input,
      demuxer: "mov",
      output: join(own, "long.ogg"),
      signal: signal(),
      onProgress: () => {},
    });
    expect(outcome).toEqual({ ok: false, reason: "too_long", detail: "8" });
    // Only ffprobe ran: no FFmpeg decoded it.
    expect((await measured.runs()).map((r) => r.tool)).toEqual(["ffprobe"]);
  });

  it("runs FFmpeg with PATH and a locale only, one thread and a memory limit", async () => {
    const secret = "xoxb-the-bot-token-that-ffmpeg-must-never-see";
    process.env.SLACK_BOT_TOKEN = secret;
    try {
      const input = join(own, "long.flac");
      await tone(input, OWN_HZ, 60, "-c:a", "flac");
      // Each run logged by its wrapper as it ends: a probe over in a few milliseconds is
      // seen as surely as the long decode, however loaded the machine.
      const measured = await measuredTools(join(temp.dir, "measured-env"), [secret]);
      const found = await findMediaTools({ ffmpegPath: measured.ffmpegPath });
      if (found === undefined) throw new Error("the measuring wrappers do not run");
      const outcome = await createPreparer(found, {
        concurrency: 1,
        timeoutMs: 60_000,
        maxHours: 8,
        logger: pino({ level: "silent" }),
      }).prepare({
        input,
        demuxer: "flac",
        output: join(own, "long.ogg"),
        signal: signal(),
        onProgress: () => {},
      });
      expect(outcome).toEqual({ ok: true });
      const ran = await measured.runs();
      expect(ran.map((r) => r.tool)).toEqual(expect.arrayContaining(["ffprobe", "ffmpeg"]));
      for (const r of ran) {
        expect(r.environment).toEqual(["LC_ALL", "PATH"]);
        expect(r.sawSecret).toBe(false);
        expect(r.args.join(" ")).toContain("-threads 1");
        expect(r.args.join(" ")).toContain(`-format_whitelist flac -f flac -i file:${input}`);
        if (found.addressSpace !== undefined) expect(r.addressSpace).toBe(ADDRESS_SPACE_BYTES);
      }
    } finally {
      delete process.env.SLACK_BOT_TOKEN;
    }
  }, 60_000);

  it("finds prlimit on Linux, so every run has its memory limit", () => {
    expect(tools.addressSpace).toEqual({ prlimit: "prlimit", bytes: ADDRESS_SPACE_BYTES });
  });
});
