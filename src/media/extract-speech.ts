import { resolve } from "node:path";
import { uploadInput } from "./read-upload.ts";
import { runTool } from "./run-tool.ts";
import type { MediaTools } from "./tools.ts";

export interface ExtractSpeechOptions {
  input: string;
  /** The demuxer the input's bytes were sniffed as: the only one FFmpeg may use. */
  demuxer: string;
  /** Written as Ogg Opus; the caller names it (`.ogg`, one of the Note Service's formats). */
  output: string;
  /** FFmpeg stops writing after this much sound (`-t`), whatever the container claimed. */
  maxSeconds: number;
  /** FFmpeg stops writing past this size (`-fs`). */
  maxBytes: number;
  /** From `probeMedia`: progress is a fraction of it. */
  durationSec: number | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Called as FFmpeg reports its position, with a fraction in 0..1. */
  onProgress?: ((fraction: number) => void) | undefined;
  onStart?: ((pid: number) => void) | undefined;
}

/**
 * The audio the Note Service gets from a recording it would not take as it is: the first
 * audio stream, down-mixed to mono at 16 kHz (speech's band; what speech recognisers work
 * at) and coded as Opus at 32 kbit/s with its speech tuning — an hour is ~14 MB, so even a
 * 21-hour recording fits the service's 300 MB. Video, subtitles and data streams are not
 * decoded at all (`-map 0:a:0`), which is what keeps an hour of 720p video fast.
 */
export const SPEECH_ARGS = [
  // One thread: FFMPEG_CONCURRENCY then bounds the cores FFmpeg takes (the audio is decoded
  // and encoded on one anyway; more threads only crowd the bot's own event loop).
  "-threads",
  "1",
  "-map",
  "0:a:0",
  "-vn",
  "-sn",
  "-dn",
  "-ac",
  "1",
  "-ar",
  "16000",
  "-c:a",
  "libopus",
  "-b:a",
  "32k",
  "-application",
  "voip",
  "-f",
  "ogg",
] as const;

/**
 * Extracts the speech of `input` into `output` (see {@link SPEECH_ARGS}); resolves with how
 * many seconds of sound were written (the last position FFmpeg reported), which is
 * `maxSeconds` when the recording went on past it.
 */
export async function extractSpeech(tools: MediaTools, o: ExtractSpeechOptions): Promise<number> {
  const durationUs = o.durationSec === undefined ? undefined : o.durationSec * 1e6;
  let writtenUs = 0;
  await runTool(
    tools.ffmpeg,
    [
      "-nostdin",
      "-hide_banner",
      "-loglevel",
      "error",
      "-y",
      ...uploadInput(o.input, o.demuxer),
      ...SPEECH_ARGS,
      "-t",
      String(o.maxSeconds),
      "-fs",
      String(o.maxBytes),
      // key=value lines on stdout, a block every half second; no stats on stderr.
      "-progress",
      "pipe:1",
      "-stats_period",
      "0.5",
      "-nostats",
      `file:${resolve(o.output)}`,
    ],
    {
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      onStart: o.onStart,
      addressSpace: tools.addressSpace,
      onLine: (line) => {
        const position = positionUsOf(line);
        if (position === undefined) return;
        writtenUs = Math.max(writtenUs, position);
        if (durationUs === undefined || o.onProgress === undefined) return;
        o.onProgress(Math.min(1, Math.max(0, position / durationUs)));
      },
    },
  );
  return writtenUs / 1e6;
}

/**
 * The position in microseconds of an `-progress` line `out_time_us=…` (FFmpeg 5 also
 * prints `out_time_ms`, in microseconds despite its name, and `N/A` before the first packet).
 */
export function positionUsOf(line: string): number | undefined {
  const match = /^out_time_us=(\d+)$/.exec(line.trim());
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
