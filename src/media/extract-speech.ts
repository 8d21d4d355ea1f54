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
  maxBytes: number;
  /** From `probeMedia`: progress is a fraction of it. */
  durationSec: number | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((fraction: number) => void) | undefined;
  onStart?: ((pid: number) => void) | undefined;
}

/**
 * The first audio stream as mono 16 kHz Opus at 32 kbit/s, speech-tuned (an hour is ~14 MB);
 * video and other streams are never decoded (`-map 0:a:0`). One thread: FFMPEG_CONCURRENCY
 * then bounds the cores FFmpeg takes.
 */
export const SPEECH_ARGS = (
  "-threads 1 -map 0:a:0 -vn -sn -dn -ac 1 -ar 16000 " +
  "-c:a libopus -b:a 32k -application voip -f ogg"
).split(" ");

/** Resolves to the seconds of sound written: `maxSeconds` when the recording went past it. */
export async function extractSpeech(tools: MediaTools, o: ExtractSpeechOptions): Promise<number> {
  const durationUs = o.durationSec === undefined ? undefined : o.durationSec * 1e6;
  let writtenUs = 0;
  await runTool(
    tools.ffmpeg,
    [
      ..."-nostdin -hide_banner -loglevel error -y".split(" "),
      ...uploadInput(o.input, o.demuxer),
      ...SPEECH_ARGS,
      ...["-t", String(o.maxSeconds), "-fs", String(o.maxBytes)],
      // key=value lines on stdout, a block every half second; no stats on stderr.
      ..."-progress pipe:1 -stats_period 0.5 -nostats".split(" "),
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

/** The position of a `-progress` line `out_time_us=…`, in microseconds. */
export function positionUsOf(line: string): number | undefined {
  const match = /^out_time_us=(\d+)$/.exec(line.trim());
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
