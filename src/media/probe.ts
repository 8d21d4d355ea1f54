import { z } from "zod";
import type { ProbedRecording } from "../recordings/index.ts";
import { OVERSIZED_FRAME, uploadInput } from "./read-upload.ts";
import { runTool, ToolError } from "./run-tool.ts";
import type { MediaTools } from "./tools.ts";

export interface MediaInfo extends ProbedRecording {
  hasVideo: boolean;
}

const PROBE_TIMEOUT_MS = 60_000;

/** The parts of `ffprobe -show_format -show_streams -of json` read here. */
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
