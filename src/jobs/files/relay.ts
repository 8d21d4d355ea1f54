import { isRetryable, NoteTakerError } from "../../notetaker/index.ts";
import {
  audioFormatOf,
  MAX_AUDIO_BYTES,
  type ReadAt,
  type Sniffed,
  sniffRecording,
} from "../../recordings/index.ts";
import { optional } from "../../util/optional.ts";
import type { StepContext } from "../engine/step.ts";
import type { JobIn } from "../model/job.ts";
import { decide, fileReader } from "./check-download.ts";
import { readGrowingFile, WriteProgress } from "./growing-file.ts";

/**
 * The upload that runs while the download does, so the relay takes about
 * as long as the slower transfer. Only for a recording that goes as it is
 * and whose size Slack stated (the upload's length must be known first).
 */
export interface Relay {
  readonly progress: WriteProgress;
  /**
   * Undefined when the relay did not happen or failed in a way the disk
   * copy may not; rejects with what sending again could not change.
   */
  readonly taskId: Promise<string | undefined>;
  stop(reason: unknown): void;
}

export function mayRelay(job: JobIn<"downloading">): boolean {
  const { size, filename } = job.source;
  return size > 0 && size <= MAX_AUDIO_BYTES && audioFormatOf(filename) !== undefined;
}

export function startRelay(ctx: StepContext, job: JobIn<"downloading">): Relay {
  const progress = new WriteProgress();
  const controller = new AbortController();
  const signal = AbortSignal.any([ctx.signal, controller.signal]);
  const { size, filename } = job.source;
  const upload = async (): Promise<string | undefined> => {
    // The bytes decide, read as they arrive: what would not go as it is is not sent.
    const read = fileReader(job.tempPath);
    const readArrived: ReadAt = async (offset, length) => {
      await progress.reach(Math.min(offset + length, size), signal);
      return read(offset, length);
    };
    const facts = { filename, size, canPrepare: ctx.media !== undefined };
    if (!goesAsIs(await sniffRecording(readArrived), facts)) return undefined;
    return ctx.client.relayAudio(
      {
        filename,
        size,
        open: () => readGrowingFile(job.tempPath, size, progress, signal),
        ...optional("speakers", job.options.speakers),
        ...optional("contextText", job.options.contextText),
        ...optional("languageHint", job.options.languageHint),
      },
      signal,
    );
  };
  const taskId = upload().catch((error: unknown) => {
    // What a try from disk would meet too fails the step; anything else leaves the disk copy to go.
    if (error instanceof NoteTakerError && !isRetryable(error) && !signal.aborted) throw error;
    if (!ctx.signal.aborted) {
      ctx.logger.warn(
        { err: error },
        "the upload during the download failed; the download goes once complete",
      );
    }
    return undefined;
  });
  // It may reject while the download still runs, before the step awaits it.
  taskId.catch(() => undefined);
  return { progress, taskId, stop: (reason) => controller.abort(reason) };
}

function goesAsIs(sniffed: Sniffed, facts: Parameters<typeof decide>[1]): boolean {
  try {
    return decide(sniffed, facts) === "as_is";
  } catch {
    // The finished download's check says why.
    return false;
  }
}
