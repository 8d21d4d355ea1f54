import { resolve } from "node:path";
import { z } from "zod";
import { MAX_FRAME_PIXELS, type ProbedRecording } from "../recordings/index.ts";
import { type MediaTools, runTool, ToolError } from "./tools.ts";

/* What ffprobe and FFmpeg are asked to do with an upload, always through `uploadInput`. */

/** The largest block FFmpeg may allocate (`-max_alloc`): no meeting needs more. */
export const MAX_ALLOC_BYTES = 64 * 1024 * 1024;

/**
 * The options before an upload's input. It is hostile bytes, so FFmpeg reads that one file
 * with the one demuxer it was sniffed as (never a playlist, concat or lavfi), the `file`
 * protocol only, one thread, and bounded memory and frame size.
 */
export function uploadInput(path: string, demuxer: string): string[] {
  return [
    "-max_alloc",
    String(MAX_ALLOC_BYTES),
    "-threads",
    "1",
    "-max_pixels",
    String(MAX_FRAME_PIXELS),
    "-protocol_whitelist",
    "file",
    "-format_whitelist",
    demuxer,
    "-f",
    demuxer,
    "-i",
    `file:${resolve(path)}`,
  ];
}

/** FFmpeg's words when a decoder refuses a frame for its size (libavutil imgutils). */
export const OVERSIZED_FRAME = /exceeds specified max pixel count/;

export interface MediaInfo extends ProbedRecording {
  hasVideo: boolean;
}

const PROBE_TIMEOUT_MS = 60_000;

const probeSchema = z.object({
  streams: z
    .array(
      z.looseObject({
        codec_type: z.string().optional(),
        width: z.number().int().nonnegative().optional(),
        height: z.number().int().nonnegative().optional(),
      }),
    )
    .default([]),
  format: z.looseObject({ duration: z.string().optional() }).optional(),
});

/** Streams, length and frame sizes by ffprobe, through the one demuxer sniffed. */
export async function probeMedia(
  tools: MediaTools,
  o: { path: string; demuxer: string; signal?: AbortSignal | undefined },
): Promise<MediaInfo> {
  const out = await runTool(
    tools.ffprobe,
    [
      "-v",
      "error",
      ...uploadInput(o.path, o.demuxer),
      "-show_format",
      "-show_streams",
      "-of",
      "json",
    ],
    { timeoutMs: PROBE_TIMEOUT_MS, signal: o.signal, addressSpace: tools.addressSpace },
  );
  let json: unknown;
  try {
    json = JSON.parse(out.stdout);
  } catch (cause) {
    throw new ToolError("ffprobe printed something that is not JSON.", "exit", { cause });
  }
  const parsed = probeSchema.safeParse(json);
  if (!parsed.success) {
    throw new ToolError("ffprobe's answer has an unexpected shape.", "exit", {
      cause: parsed.error,
    });
  }
  const { streams, format } = parsed.data;
  const duration = Number(format?.duration);
  const video = streams.filter((stream) => stream.codec_type === "video");
  return {
    durationSec: Number.isFinite(duration) && duration > 0 ? duration : undefined,
    hasAudio: streams.some((stream) => stream.codec_type === "audio"),
    hasVideo: video.length > 0,
    largestFramePixels: Math.max(0, ...video.map((s) => (s.width ?? 0) * (s.height ?? 0))),
    oversizedFrame: OVERSIZED_FRAME.test(out.stderr),
  };
}

export interface ExtractSpeechOptions {
  input: string;
  /** The demuxer the input's bytes were sniffed as: the only one FFmpeg may use. */
  demuxer: string;
  /** Written as Ogg Opus; the caller names it (`.ogg`, one of the Note Service's formats). */
  output: string;
  /** FFmpeg stops writing after this much sound (`-t`), whatever the container claimed. */
  maxSeconds: number;
  maxBytes: number;
  durationSec: number | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((fraction: number) => void) | undefined;
  onStart?: ((pid: number) => void) | undefined;
}

/**
 * The first audio stream as speech-tuned mono Opus; video and other streams are never decoded.
 * One thread, so FFMPEG_CONCURRENCY bounds the cores FFmpeg takes.
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
