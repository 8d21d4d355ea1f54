import { z } from "zod";
import { INPUT_GUARD, runTool, ToolError } from "./run-tool.ts";
import type { MediaTools } from "./tools.ts";

/** What ffprobe says of a recording. */
export interface MediaInfo {
  /** Length in seconds; undefined when the container does not say (progress is then unknown). */
  durationSec: number | undefined;
  hasAudio: boolean;
  hasVideo: boolean;
}

const PROBE_TIMEOUT_MS = 60_000;

/** The parts of `ffprobe -show_format -show_streams -of json` read here. */
const probeSchema = z.object({
  streams: z.array(z.looseObject({ codec_type: z.string().optional() })).default([]),
  format: z.looseObject({ duration: z.string().optional() }).optional(),
});

/**
 * Reads a recording's streams and length. Rejects with a {@link ToolError} when ffprobe
 * cannot read the file at all (not media, or damaged).
 */
export async function probeMedia(
  tools: MediaTools,
  path: string,
  signal?: AbortSignal,
): Promise<MediaInfo> {
  const out = await runTool(
    tools.ffprobe,
    ["-v", "error", ...INPUT_GUARD, "-show_format", "-show_streams", "-of", "json", "--", path],
    { timeoutMs: PROBE_TIMEOUT_MS, signal },
  );
  let json: unknown;
  try {
    json = JSON.parse(out);
  } catch (cause) {
    throw new ToolError("ffprobe printed something that is not JSON.", "exit", { cause });
  }
  const parsed = probeSchema.safeParse(json);
  if (!parsed.success) {
    throw new ToolError("ffprobe's answer has an unexpected shape.", "exit", {
      cause: parsed.error,
    });
  }
  const types = parsed.data.streams.map((stream) => stream.codec_type);
  const duration = Number(parsed.data.format?.duration);
  return {
    durationSec: Number.isFinite(duration) && duration > 0 ? duration : undefined,
    hasAudio: types.includes("audio"),
    hasVideo: types.includes("video"),
  };
}
