import { copyFile, mkdir, readFile, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploymentPaths } from "../../src/deployment-paths.ts";
import { ADDRESS_SPACE_BYTES } from "../../src/media/tools.ts";
import { startProcesses } from "../../support/e2e/processes.ts";
import { ALICE, eventually, SIGNING_SECRET } from "../../support/e2e/stack.ts";
import { fileShareMessageEvent } from "../../support/fake-slack/slack-payloads.ts";
import { sendEvent } from "../../support/fake-slack/slack-request.ts";
import {
  concatList,
  filesIn,
  hlsPlaylist,
  hugeFrameMkv,
  id3Prefixed,
  type MeasuredRun,
  m4aClaiming,
  measuredTools,
  tone,
  toneShares,
  trackerModule,
} from "../../support/helpers/hostile-media.ts";
import { FFMPEG_AVAILABLE, movie } from "../../support/helpers/media-files.ts";

/*
 * The real bot (its own process, HTTP mode, FFmpeg through wrappers that measure every run)
 * given the uploads of someone who wants another person's meeting, or wants to stall the
 * bot: each is refused with one sentence or prepared as its own sound, the Note Service
 * (the emulator, keeping what it receives) never gets a byte of the victim's recording
 * under another job, and FFmpeg stays within its memory, its time and an empty environment.
 */

const MALLORY = "U0MALLORY";
const VICTIM_CHANNEL = "C0BOARD01";
const MALLORY_CHANNEL = "C0MALLORY";
const VICTIM_HZ = 1000;
const MALLORY_HZ = 440;
const LATER_HZ = 660;
const MB = 1024 * 1024;
/** A recording downloaded into its job's folder: `<job>/source-<attempt>.mp3`. */
const SOURCE_FILE = /\/source-[0-9a-f]+\.mp3$/;

const NOT_AUDIO = (file: string) =>
  `${file} isn't an audio recording, so I can't make notes from it.`;

describe.skipIf(!FFMPEG_AVAILABLE)("hostile recordings against the real bot", () => {
  let world: Awaited<ReturnType<typeof startProcesses>>;
  let measured: Awaited<ReturnType<typeof measuredTools>>;
  let media: string;
  let tmp: string;
  /** Where the victim's recording is kept: its job's folder, an earlier version's file. */
  let victimJobId: string;
  /** The name of the victim's recording in its job's folder (one per download attempt). */
  let victimFile: string;
  let victimKept: string[];
  let appUrl: string;
  const uploads = new Map<string, { ts: string; at: number }>();

  beforeAll(async () => {
    world = await startProcesses();
    media = join(world.temp.dir, "media");
    tmp = deploymentPaths(world.env.STORE_URL).tempDir;
    await mkdir(media);
    world.fake.addUser({ id: MALLORY, name: "mallory", real_name: "Mallory", locale: "en-US" });
    world.fake.addChannel({
      id: VICTIM_CHANNEL,
      name: "board",
      is_private: true,
      members: [ALICE],
    });
    world.fake.addChannel({ id: MALLORY_CHANNEL, name: "mallory", members: [MALLORY] });
    // The bot token, the signing secret and the Note Service key.
    measured = await measuredTools(join(world.temp.dir, "tools"), world.secrets());
    world.emulator.knobs.keepAudioIn = join(world.temp.dir, "received");
    await mkdir(join(world.temp.dir, "received"));
    const app = await world.app({ FFMPEG_PATH: measured.ffmpegPath, FFMPEG_CONCURRENCY: "1" });
    appUrl = app.url;
  }, 60_000);
  afterAll(() => world?.stop());

  /** Shares a file in a channel as Slack announces it, and remembers when. */
  async function share(name: string, path: string, user: string, channel: string) {
    const file = world.fake.addFile({ name, path, user });
    const message = world.fake.shareFile(file, { channel, user });
    const event = fileShareMessageEvent(file, { channel, user, ts: message.ts });
    await sendEvent(appUrl, SIGNING_SECRET, event, { teamId: world.fake.teamId });
    uploads.set(name, { ts: message.ts, at: Date.now() });
    return message.ts;
  }

  /** The bot's status message in the upload's thread once it reads `sentence`. */
  const statusSaying = (name: string, channel: string, sentence: string) => {
    const ts = uploads.get(name)?.ts ?? "";
    return eventually(
      () =>
        world.fake.thread(channel, ts).find((m) => m.user === world.fake.botUserId && m.ts !== ts),
      (m) => m?.text === sentence,
      { timeoutMs: 120_000, what: `the status of ${name} to say: ${sentence}` },
    );
  };

  it("keeps the victim's recording on disk while the Note Service is down", async () => {
    // The service refuses every upload for now: the victim's job keeps its recording.
    world.emulator.knobs.faults = [{ match: "POST /audio2dialog", status: 503, count: 100_000 }];
    const victim = join(media, "board-meeting.mp3");
    await tone(victim, VICTIM_HZ, 9, "-c:a", "libmp3lame");
    await share("board-meeting.mp3", victim, ALICE, VICTIM_CHANNEL);
    const kept = await eventually(
      () => filesIn(tmp),
      (files) => files.some((f) => SOURCE_FILE.test(f)),
      { timeoutMs: 30_000, what: "the victim's recording on disk" },
    );
    const folder = kept.find((f) => SOURCE_FILE.test(f)) ?? "";
    victimJobId = folder.split("/").at(-2) ?? "";
    victimFile = folder.split("/").at(-1) ?? "";
    // And where an earlier version kept a job's recording: in the temp folder itself.
    const old = join(tmp, `${victimJobId}.mp3`);
    await copyFile(victim, old);
    victimKept = [folder, old];
    expect(victimJobId).toMatch(/\S/);
  });

  it("refuses every hostile upload with one sentence, or prepares it as its own sound", async () => {
    const ownJob = `../${victimJobId}/${victimFile}`;
    const files: [string, string | Buffer | ((path: string) => Promise<void>), string][] = [
      // Concat lists: relative (climbing out of the job's folder) and absolute.
      ["minutes.mkv", id3Prefixed(concatList([ownJob])), NOT_AUDIO("minutes.mkv")],
      ["agenda.mkv", id3Prefixed(concatList(victimKept)), NOT_AUDIO("agenda.mkv")],
      ["plain-list.mkv", concatList([`${victimJobId}.mp3`]), NOT_AUDIO("plain-list.mkv")],
      // HLS playlists: absolute paths, `../`, and one behind an ID3 tag named as audio the
      // service takes (it once went to the Note Service as it was).
      ["stream.mov", hlsPlaylist(victimKept), NOT_AUDIO("stream.mov")],
      ["stream.m4a", id3Prefixed(hlsPlaylist([ownJob, "../../tmp.mp3"])), NOT_AUDIO("stream.m4a")],
      // A web page and text passing for audio.
      [
        "sign-in.m4a",
        id3Prefixed("<!doctype html><title>Sign in</title>"),
        NOT_AUDIO("sign-in.m4a"),
      ],
      ["notes.mp3", "These are not the minutes you are looking for.\n", NOT_AUDIO("notes.mp3")],
      // A tracker module (endless sound), bare and behind an ID3 tag.
      ["song.mov", id3Prefixed(trackerModule()), NOT_AUDIO("song.mov")],
      ["tune.mov", trackerModule(), NOT_AUDIO("tune.mov")],
      // A frame of 12288 × 9216 in a few MB (~384 MB to decode), with real sound.
      [
        "huge.mkv",
        (path) => hugeFrameMkv(media, path, MALLORY_HZ),
        "huge.mkv holds video frames far larger than any meeting's, so I won't read it.",
      ],
      // A movie declaring a hundred hours.
      [
        "marathon.mov",
        (path) => m4aClaiming(path, 100),
        "marathon.mov is longer than 8 hours, the longest recording I take.",
      ],
      // A movie cut in half (its index is at the end): FFmpeg cannot read it.
      [
        "cut.mov",
        async (path) => {
          await tone(path, MALLORY_HZ, 6, "-c:a", "aac", "-f", "mp4");
          await truncate(path, Math.floor((await stat(path)).size / 2));
        },
        "I could not read the sound of cut.mov; the file may be damaged.",
      ],
    ];
    // Merely odd but real: an mp3 behind a large tag (cover art) named .mov, and an AIFF.
    const prepared: [string, (path: string) => Promise<void>][] = [
      [
        "tagged.mov",
        async (path) => {
          await tone(
            join(media, "plain.mp3"),
            MALLORY_HZ,
            3,
            "-c:a",
            "libmp3lame",
            "-id3v2_version",
            "0",
          );
          const cover = Buffer.alloc(200 * 1024, 0x42);
          const tag = Buffer.from("ID3\x04\0\0\0\0\0\0", "latin1");
          for (let i = 0; i < 4; i++) tag[9 - i] = (cover.length >> (7 * i)) & 0x7f;
          await writeFile(
            path,
            Buffer.concat([tag, cover, await readFile(join(media, "plain.mp3"))]),
          );
        },
      ],
      ["voice.aif", (path) => tone(path, MALLORY_HZ, 3, "-c:a", "pcm_s16be", "-f", "aiff")],
    ];
    // Made side by side (each FFmpeg on one thread).
    await Promise.all(
      [...files.map(([n, m]) => [n, m] as const), ...prepared].map(([name, make]) => {
        const path = join(media, name);
        return typeof make === "function" ? make(path) : writeFile(path, make);
      }),
    );
    for (const [name] of [...files, ...prepared]) {
      await share(name, join(media, name), MALLORY, MALLORY_CHANNEL);
    }

    for (const [name, , sentence] of files) {
      const status = await statusSaying(name, MALLORY_CHANNEL, sentence);
      // Seen at most this long after its upload (it ended no later).
      expect(Date.now() - (uploads.get(name)?.at ?? 0), name).toBeLessThan(120_000);
      // Refused for what it is: no Retry that would run FFmpeg on it again.
      expect(JSON.stringify(status?.blocks ?? []), name).not.toMatch(/retry/i);
    }
    // The real ones reach the Note Service once it is back, as their own sound.
    world.emulator.knobs.faults = [];
    await eventually(
      () => world.emulator.stats.audioSubmissions.map((s) => s.filename),
      (names) => ["tagged.ogg", "voice.ogg"].every((n) => names.includes(n)),
      { timeoutMs: 60_000, what: "the prepared recordings at the Note Service" },
    );
  }, 240_000);

  it("takes a normal recording uploaded right after the bombs within 150 s", async () => {
    const path = join(media, "standup.mkv");
    await movie(path, { seconds: 5, hz: LATER_HZ, audio: "libopus" });
    const at = Date.now();
    await share("standup.mkv", path, MALLORY, MALLORY_CHANNEL);
    await eventually(
      () => world.emulator.stats.audioSubmissions.map((s) => s.filename),
      (names) => names.includes("standup.ogg"),
      { timeoutMs: 150_000, what: "the normal recording at the Note Service" },
    );
    expect(Date.now() - at).toBeLessThan(150_000);
  }, 180_000);

  it("never sends a byte of the victim's recording under another job", async () => {
    const received = world.emulator.stats.audioSubmissions;
    const names = received.map((s) => s.filename).sort();
    // The victim's own job (once the service was back), and the three real recordings.
    expect(names.filter((n) => n !== "board-meeting.mp3")).toEqual([
      "standup.ogg",
      "tagged.ogg",
      "voice.ogg",
    ]);
    for (const submission of received) {
      if (submission.keptPath === undefined) throw new Error("the emulator kept no recording");
      const shares = await toneShares(submission.keptPath, [VICTIM_HZ, MALLORY_HZ, LATER_HZ]);
      if (submission.filename === "board-meeting.mp3") {
        expect(shares.get(VICTIM_HZ)).toBeGreaterThan(0.5);
        continue;
      }
      const own = submission.filename === "standup.ogg" ? LATER_HZ : MALLORY_HZ;
      expect(shares.get(own), submission.filename).toBeGreaterThan(0.5);
      expect(shares.get(VICTIM_HZ), submission.filename).toBeLessThan(0.01);
    }
  });

  it("ran every FFmpeg and ffprobe on one job's file, in bounds, with nothing of the bot's environment", async () => {
    const runs = await measured.runs();
    // ffprobe then FFmpeg for each real recording; ffprobe alone for the refused ones.
    expect(runs.filter((r) => r.tool === "ffmpeg").length).toBe(3);
    expect(runs.filter((r) => r.tool === "ffprobe").length).toBe(6);
    for (const r of runs) {
      const what = `${r.tool} ${r.args.join(" ")}`;
      expect(r.maxRss, what).toBeLessThan(300 * MB);
      expect(r.environment, what).toEqual(["LC_ALL", "PATH"]);
      expect(r.sawSecret, what).toBe(false);
      expect(r.addressSpace, what).toBe(ADDRESS_SPACE_BYTES);
      const input = inputOf(r);
      expect(input.startsWith(`file:${tmp}/`), what).toBe(true);
      expect(input.slice(`file:${tmp}/`.length), what).toMatch(/^[\w-]+\/source-[0-9a-f]+\.\w+$/);
    }
  });
});

/** The `-f` demuxer and the input, as the bot gave them. */
function inputOf(run: MeasuredRun): string {
  const at = run.args.indexOf("-i");
  const demuxer = run.args[run.args.indexOf("-f") + 1];
  const whitelist = run.args[run.args.indexOf("-format_whitelist") + 1];
  if (demuxer === undefined || whitelist !== demuxer) return `demuxer ${demuxer} / ${whitelist}`;
  return run.args[at + 1] ?? "";
}
