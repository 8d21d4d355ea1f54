import PQueue from "p-queue";
import type { Logger } from "pino";
import { MAX_SOURCE_BYTES, type MediaPort, type PrepareOutcome } from "../jobs/media-port.ts";
import { extractSpeech } from "./extract-speech.ts";
import { probeMedia } from "./probe.ts";
import { ToolError } from "./run-tool.ts";
import type { MediaTools } from "./tools.ts";

export interface PreparerOptions {
  /** FFmpeg processes at once in this process (FFMPEG_CONCURRENCY). */
  concurrency: number;
  /** Time one preparation may take once it runs (FFMPEG_TIMEOUT_MINUTES). */
  timeoutMs: number;
  logger: Logger;
}

/**
 * The job layer's {@link MediaPort} over FFmpeg: ffprobe first (no audio stream → "no
 * sound"), then the extraction, at most `concurrency` at once — each FFmpeg takes a core.
 */
export function createPreparer(tools: MediaTools, o: PreparerOptions): MediaPort {
  const slots = new PQueue({ concurrency: o.concurrency });
  return {
    maxSourceBytes: MAX_SOURCE_BYTES,
    prepare: ({ input, output, signal, onProgress }) =>
      slots.add(
        async (): Promise<PrepareOutcome> => {
          try {
            const info = await probeMedia(tools, input, signal);
            if (!info.hasAudio) return { ok: false, reason: "no_sound" };
            await extractSpeech(tools, {
              input,
              output,
              durationSec: info.durationSec,
              timeoutMs: o.timeoutMs,
              signal,
              onProgress,
            });
            return { ok: true };
          } catch (error) {
            if (!(error instanceof ToolError)) throw error;
            o.logger.warn({ err: error }, "FFmpeg could not prepare a recording");
            if (error.reason === "timeout") {
              return { ok: false, reason: "timeout", minutes: Math.round(o.timeoutMs / 60_000) };
            }
            // A spawn failure (FFmpeg removed since start-up) is not the file's fault.
            if (error.reason === "spawn") throw error;
            return { ok: false, reason: "unreadable" };
          }
        },
        { signal },
      ),
  };
}
