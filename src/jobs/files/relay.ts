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
 * The upload that runs while the download does: the Note Service receives the recording
 * as it reaches the disk, so the relay takes about as long as the slower of the two
 * transfers instead of both in turn. Only for a recording that goes as it is and whose
 * size Slack stated (the upload's length must be known before its first byte).
 */
export interface Relay {
  /** Told the download's length after each write reaches the disk. */
  readonly progress: WriteProgress;
  /**
   * The task id, or undefined when the relay did not happen or failed in a way the disk
   * copy may not (it goes then); rejects with what sending it again could not change.
   */
  readonly taskId: Promise<string | undefined>;
  /** Stops the upload (the download failed). */
  stop(reason: unknown): void;
}

/** Whether a job's recording may be relayed: a name the service takes and a stated size. */
export function mayRelay(job: JobIn<"downloading">): boolean {
  const { size, filename } = job.source;
  return size > 0 && size <= MAX_AUDIO_BYTES && audioFormatOf(filename) !== undefined;
}

/** Starts following the download of `job` into an upload (see {@link Relay}). */
export function startRelay(ctx: StepContext, job: JobIn<"downloading">): Relay {
  const progress = new WriteProgress();
  const controller = new AbortController();
  const signal = AbortSignal.any([ctx.signal, controller.signal]);
  const { size, filename } = job.source;
  const upload = async (): Promise<string | undefined> => {
    // The bytes decide, as they do for the finished download: what would not go as it is
    // (not audio, a container to prepare) is not sent. They are read as they arrive.
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
    // What a second try from disk would meet too (a refused key, a refused recording) is the
    // step's failure, as it would be from disk; anything else leaves the disk copy to go.
    if (error instanceof NoteTakerError && !isRetryable(error) && !signal.aborted) throw error;
    if (!ctx.signal.aborted) {
      ctx.logger.warn(
        { err: error },
        "the upload during the download failed; the download goes once complete",
      );
    }
    return undefined;
  });
  // Handled here too: it may reject while the download still runs, before the step awaits it.
  taskId.catch(() => undefined);
  return { progress, taskId, stop: (reason) => controller.abort(reason) };
}

/** Whether these bytes go to the service as they are; what does not is the step's to say. */
function goesAsIs(sniffed: Sniffed, facts: Parameters<typeof decide>[1]): boolean {
  try {
    return decide(sniffed, facts) === "as_is";
  } catch {
    // Not audio, or a container without FFmpeg: the finished download's check fails the job.
    return false;
  }
}
