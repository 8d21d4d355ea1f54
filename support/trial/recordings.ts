import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ffmpeg } from "../helpers/run-ffmpeg.ts";
import { speechLikeSamples } from "./speech-audio.ts";
import { wavFile } from "./wav-file.ts";

const SAMPLE_RATE = 16_000;

/** A recording the trial made, ready to share in the channel. */
export interface TrialRecording {
  /** The file's name as shared in Slack. */
  name: string;
  path: string;
  /** What it is, for the person: "14 s of two voices taking turns, AAC in an M4A file". */
  about: string;
  video: boolean;
}

/** Whether `ffmpeg` runs from PATH, as the bot itself looks for it. */
export function hasFfmpeg(): boolean {
  return spawnSync("ffmpeg", ["-hide_banner", "-version"], { stdio: "ignore" }).status === 0;
}

/**
 * The trial's recordings, written into `dir`: a meeting's worth of speech-like sound
 * (speech-audio.ts) as AAC in an M4A file, and (unless `video` is false) a short QuickTime
 * movie with that sound, which the bot prepares with its own FFmpeg; without FFmpeg, the
 * sound as a WAV file written here.
 */
export async function makeRecordings(
  dir: string,
  o: { ffmpeg: boolean; video?: boolean },
): Promise<TrialRecording[]> {
  const seconds = 14;
  const wav = join(dir, "weekly-sync.wav");
  await writeFile(
    wav,
    wavFile(speechLikeSamples({ seconds, sampleRate: SAMPLE_RATE }), SAMPLE_RATE),
  );
  const talk = `${seconds} s of two voices taking turns`;
  if (!o.ffmpeg) {
    return [{ name: "weekly-sync.wav", path: wav, about: `${talk}, 16-bit WAV`, video: false }];
  }
  const audio = join(dir, "weekly-sync.m4a");
  const movie = join(dir, "standup.mov");
  const sound: TrialRecording = {
    name: "weekly-sync.m4a",
    path: audio,
    about: `${talk}, AAC in an M4A file`,
    video: false,
  };
  if (o.video === false) {
    await ffmpeg("-i", wav, "-c:a", "aac", "-b:a", "48k", audio);
    return [sound];
  }
  await Promise.all([
    ffmpeg("-i", wav, "-c:a", "aac", "-b:a", "48k", audio),
    ffmpeg(
      ...["-f", "lavfi", "-i", "testsrc2=s=320x240:r=10", "-i", wav, "-t", "6"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", movie],
    ),
  ]);
  return [
    sound,
    {
      name: "standup.mov",
      path: movie,
      about: "a 6 s QuickTime movie (H.264 picture, AAC sound) that the bot prepares with FFmpeg",
      video: true,
    },
  ];
}
