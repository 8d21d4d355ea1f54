import PQueue from "p-queue";
import type { Logger } from "pino";
import type { MediaPort, PrepareOutcome } from "../jobs/ports.ts";
import { checkProbed, MAX_AUDIO_BYTES, MAX_SOURCE_BYTES } from "../recordings/index.ts";
import { extractSpeech, probeMedia } from "./ffmpeg.ts";
import { type MediaTools, ToolError } from "./tools.ts";

export interface PreparerOptions {
  /** FFmpeg processes at once in this process (FFMPEG_CONCURRENCY). */
  concurrency: number;
  /** The most time one preparation may take once it runs (FFMPEG_TIMEOUT_MINUTES). */
  timeoutMs: number;
  /** The longest recording taken (MAX_RECORDING_HOURS). */
  maxHours: number;
  logger: Logger;
}

/** Seconds of sound per second FFmpeg must reach at least (it does hundreds on one core). */
const MIN_SPEED = 20;
/** What every run may take whatever its length: starting FFmpeg, a slow disk. */
const MIN_RUN_MS = 60_000;

/**
 * The job layer's {@link MediaPort} over FFmpeg, `concurrency` at once: ffprobe reads the
 * header first, and the extraction is bounded by the declared length, the Note Service's
 * size and memory.
 */
export function createPreparer(tools: MediaTools, o: PreparerOptions): MediaPort {
  const slots = new PQueue({ concurrency: o.concurrency });
  const maxSeconds = o.maxHours * 3600;
  return {
    maxSourceBytes: MAX_SOURCE_BYTES,
    prepare: ({ input, demuxer, output, signal, onProgress }) =>
      inSlot(
        slots,
        async (): Promise<PrepareOutcome> => {
          let budget = { ms: o.timeoutMs, fromLength: false };
          try {
            const info = await probeMedia(tools, { path: input, demuxer, signal });
            const refusal = checkProbed(info, o.maxHours);
            if (refusal !== undefined) return refused(refusal, o.maxHours);
            budget = runBudget(info.durationSec ?? maxSeconds, o.timeoutMs);
            const written = await extractSpeech(tools, {
              input,
              demuxer,
              output,
              durationSec: info.durationSec,
              // One byte over the cap: a file that reaches it is refused, never cut short.
              maxBytes: MAX_AUDIO_BYTES + 1,
              maxSeconds,
              timeoutMs: budget.ms,
              signal,
              onProgress,
            });
            // The container declared less than it holds: refused, never cut short.
            if (written >= maxSeconds - 1) return refused("too_long", o.maxHours);
            return { ok: true };
          } catch (error) {
            if (!(error instanceof ToolError)) throw error;
            o.logger.warn({ err: error, demuxer }, "FFmpeg could not prepare a recording");
            if (error.reason === "timeout") {
              // Far slower than its length allows: the file's doing. Past the admin's own
              // limit: the limit's, and Retry may find a quieter machine.
              return budget.fromLength
                ? { ok: false, reason: "prepare_too_slow" }
                : { ok: false, reason: "timeout", minutes: Math.round(o.timeoutMs / 60_000) };
            }
            // A spawn failure (FFmpeg removed since start-up) is not the file's fault.
            if (error.reason === "spawn") throw error;
            return { ok: false, reason: "prepare_failed" };
          }
        },
        signal,
      ),
  };
}

/**
 * `task` in a slot of `slots`. An abort while it runs rejects only once the task ended: the
 * caller removes the job's files next, never under an FFmpeg still writing them.
 */
function inSlot<T>(slots: PQueue, task: () => Promise<T>, signal: AbortSignal): Promise<T> {
  let running: Promise<T> | undefined;
  const run = () => {
    running = task();
    return running;
  };
  return slots.add(run, { signal }).catch(async (error: unknown) => {
    await running?.catch(() => undefined);
    throw error;
  });
}

/** The time a recording of `seconds` may take, and whether its length (not the cap) set it. */
function runBudget(seconds: number, capMs: number): { ms: number; fromLength: boolean } {
  const ms = Math.ceil(MIN_RUN_MS + (seconds * 1000) / MIN_SPEED);
  return ms < capMs ? { ms, fromLength: true } : { ms: capMs, fromLength: false };
}

function refused(
  reason: "no_sound" | "too_long" | "frame_too_large",
  maxHours: number,
): PrepareOutcome {
  return reason === "too_long"
    ? { ok: false, reason, detail: String(maxHours) }
    : { ok: false, reason };
}
