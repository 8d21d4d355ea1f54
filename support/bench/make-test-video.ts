/**
 * A long meeting recording made from FFmpeg's test sources only, for the `prepare`
 * benchmark: 1280×720 H.264 video and speech-like stereo AAC in a `.mov`, made once and
 * kept under the system temp folder (a folder named by the recipe), since making an hour
 * takes a minute or two on 2 cores and the file is ~0.5 GB.
 * `node support/bench/make-test-video.ts [MINUTES]` makes it (or finds it) and prints its facts.
 */
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runChild } from "./support.ts";

/** Change it when the recipe changes: the cached file is then made again. */
const RECIPE = 1;
/** The video loop: encoded once, then copied over and over (encoding an hour would take long). */
const CLIP_SEC = 60;
const VIDEO = { size: "1280x720", fps: 25, kbps: 1000 };
const AUDIO = { rate: 48_000, kbps: 96 };

/** Arguments written as one line (none of them holds a space). */
const words = (text: string) => text.split(" ");

export interface TestVideo {
  path: string;
  bytes: number;
  durationSec: number;
  /** How long making it took, now or in the earlier run that made it. */
  madeMs: number;
  /** Made by an earlier run. */
  cached: boolean;
}

/**
 * Speech-like sound: pink noise band-passed to the telephone band (300–3400 Hz), gated
 * into syllables at about 4 a second (jittered), pulsed at a voice's pitch (130 ± 25 Hz),
 * with pauses of a second or more between phrases where two slow waves cancel. The
 * envelope is computed at 2 kHz and resampled: evaluating it at 48 kHz costs more than
 * everything else together.
 */
function speechGraph(seconds: number): string {
  const envelope = [
    "pow(sin(PI*4*t+0.7*sin(2*PI*0.9*t)),2)",
    "gt(sin(2*PI*0.11*t)+sin(2*PI*0.037*t)+0.6,0)",
    "(0.6+0.4*sin(2*PI*(130+25*sin(2*PI*0.3*t))*t))",
  ].join("*");
  return [
    `anoisesrc=color=pink:sample_rate=${AUDIO.rate}:amplitude=0.5:duration=${seconds}:seed=7,`,
    "highpass=f=300,lowpass=f=3400[noise];",
    `aevalsrc='${envelope}':s=2000:d=${seconds},aresample=${AUDIO.rate}[envelope];`,
    "[noise][envelope]amultiply,volume=2,aformat=channel_layouts=stereo[speech]",
  ].join("");
}

/** The test video of `minutes`, made unless already cached. */
export async function testVideo(minutes = 60): Promise<TestVideo> {
  const seconds = minutes * 60;
  const key = `r${RECIPE}-${seconds}s-${VIDEO.size}-${VIDEO.fps}fps-${VIDEO.kbps}k-aac${AUDIO.kbps}k`;
  const dir = join(tmpdir(), `mn-bench-video-${key}`);
  const path = join(dir, "meeting.mov");
  /** Written beside the video once it is complete: `{ madeMs }`. */
  const facts = join(dir, "made.json");
  const made = await readFile(facts, "utf8").catch(() => undefined);
  if (made !== undefined) {
    const { madeMs } = JSON.parse(made) as { madeMs: number };
    const { size } = await stat(path);
    return { path, bytes: size, durationSec: await durationOf(path), madeMs, cached: true };
  }
  await mkdir(dir, { recursive: true });
  const started = performance.now();
  const clip = join(dir, "clip.mp4");
  const audio = join(dir, "speech.m4a");
  const partial = join(dir, "partial.mov");
  const ffmpeg = (args: string[]) =>
    runChild("ffmpeg", [...words("-nostdin -hide_banner -loglevel error -y"), ...args]);
  // The clip (x264 takes both cores) and the audio (one thread) at once.
  await Promise.all([
    ffmpeg([
      ...words(`-f lavfi -i testsrc2=size=${VIDEO.size}:rate=${VIDEO.fps}`),
      ...words(`-t ${Math.min(CLIP_SEC, seconds)} -c:v libx264 -preset ultrafast`),
      ...words(`-pix_fmt yuv420p -g ${10 * VIDEO.fps} -b:v ${VIDEO.kbps}k`),
      clip,
    ]),
    ffmpeg([
      ...["-filter_complex", speechGraph(seconds), "-map", "[speech]"],
      ...words(`-c:a aac -b:a ${AUDIO.kbps}k`),
      audio,
    ]),
  ]);
  // The clip looped to the full length and the audio beside it, both copied, not encoded.
  await ffmpeg([
    ...["-stream_loop", "-1", "-i", clip, "-i", audio],
    ...words(`-map 0:v -map 1:a -c copy -t ${seconds}`),
    partial,
  ]);
  const durationSec = await durationOf(partial);
  if (Math.abs(durationSec - seconds) > 1) {
    throw new Error(`the test video lasts ${durationSec} s, not ${seconds} s`);
  }
  await rename(partial, path);
  await Promise.all([rm(clip), rm(audio)]);
  const madeMs = performance.now() - started;
  await writeFile(facts, JSON.stringify({ madeMs }));
  const { size } = await stat(path);
  return { path, bytes: size, durationSec, madeMs, cached: false };
}

/** A media file's length in seconds, as ffprobe reads its container. */
export async function durationOf(path: string): Promise<number> {
  const probe = await runChild("ffprobe", [
    ...words("-v error -show_entries format=duration -of csv=p=0"),
    path,
  ]);
  return Number(probe.stdout.trim());
}

if (import.meta.main) {
  const video = await testVideo(Number(process.argv[2] ?? 60));
  process.stdout.write(`${JSON.stringify(video)}\n`);
}
