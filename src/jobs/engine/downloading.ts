import { stat } from "node:fs/promises";
import { isRetryable, NoteTakerError } from "../../notetaker/index.ts";
import {
  asIsRefusal,
  MAX_AUDIO_BYTES,
  type ReadAt,
  sniffRecording,
  verdictOf,
} from "../../recordings/index.ts";
import { optional } from "../../util/optional.ts";
import { readGrowingFile, WriteProgress } from "../files/growing-file.ts";
import {
  fileReader,
  removeEarlierAttempts,
  removeJobFile,
  sniffFile,
  sourceAttemptPath,
} from "../files/job-files.ts";
import { TempFiles } from "../files/temp-files.ts";
import type { Job, JobIn } from "../model/job.ts";
import { JobStepError } from "./failure-policy.ts";
import type { StepContext } from "./step-context.ts";

type Downloading = JobIn<"downloading">;

/**
 * A recording that goes as it is is uploaded while it downloads (the relay, below); one the
 * service would refuse goes to `preparing` when FFmpeg is there.
 */
export async function downloadingStep(ctx: StepContext, job: Downloading): Promise<Job> {
  // Each attempt's file is named in the record before a byte is
  // written, with the relay's intent: the API has no idempotency key.
  const tempPath = sourceAttemptPath(ctx, job);
  const relay = asIsRefusal(job.source) === undefined;
  const current = await ctx.update(job, { type: "download_attempt", tempPath, relay });
  await TempFiles.makeFolderFor(tempPath);
  await removeEarlierAttempts(ctx, current, [tempPath]);
  const relaying = relay ? startRelay(ctx, current) : undefined;
  let verdict: "as_is" | "prepare";
  try {
    await ctx.gateway.downloadSource(current, current.tempPath, ctx.signal, {
      maxBytes: ctx.media?.maxSourceBytes ?? MAX_AUDIO_BYTES,
      ...(relaying === undefined ? {} : { onWritten: (bytes) => relaying.progress.update(bytes) }),
    });
    relaying?.progress.finish();
    verdict = await check(ctx, current);
  } catch (error) {
    // A failed download or check: the upload following it stops, unfinished.
    relaying?.progress.fail(error);
    relaying?.stop(error);
    await relaying?.taskId.catch(() => undefined);
    throw error;
  }
  const taskId = await relaying?.taskId;
  if (taskId !== undefined) {
    const wakeAt = ctx.now() + ctx.schedule.delayMs(0);
    const relayed = await ctx.commit(current, { type: "relayed", taskId, wakeAt });
    // The service has the recording: the local copy goes at once.
    await removeJobFile(ctx, current.tempPath);
    return ctx.showStatus(relayed, "stage");
  }
  const downloaded = await ctx.commit(current, {
    type: "downloaded",
    prepare: verdict === "prepare",
  });
  return ctx.showStatus(downloaded, "stage");
}

/**
 * A failure here deletes the copy before any other Note Service call. A file that is not audio or
 * video, or one the service refuses with no FFmpeg to prepare it, fails at once: Retry brings the
 * same bytes.
 */
async function check(ctx: StepContext, job: Downloading): Promise<"as_is" | "prepare"> {
  const size = await stat(job.tempPath).then(
    (s) => s.size,
    () => 0,
  );
  if (size === 0) throw new JobStepError({ code: "download_failed" }, true);
  const facts = { filename: job.source.filename, size, canPrepare: ctx.media !== undefined };
  const verdict = verdictOf(await sniffFile(job.tempPath), facts);
  if (verdict.verdict !== "refused") return verdict.verdict;
  throw new JobStepError(
    verdict.refusal === "unsupported_container"
      ? { code: verdict.refusal, detail: verdict.format }
      : { code: verdict.refusal },
    false,
  );
}

/**
 * The upload that runs while the download does, so the relay takes about as long as the slower
 * transfer. Only for a recording that goes as it is and whose size Slack stated (the upload's
 * length must be known first).
 */
interface Relay {
  readonly progress: WriteProgress;
  /**
   * Undefined when the relay did not happen or failed in a way the disk
   * copy may not; rejects with what sending again could not change.
   */
  readonly taskId: Promise<string | undefined>;
  stop(reason: unknown): void;
}

function startRelay(ctx: StepContext, job: Downloading): Relay {
  const progress = new WriteProgress();
  const controller = new AbortController();
  const signal = AbortSignal.any([ctx.signal, controller.signal]);
  const { size, filename } = job.source;
  const upload = async (): Promise<string | undefined> => {
    // The bytes decide, read as they arrive: what would not go as it is is not sent (the
    // finished download's check says why).
    const read = fileReader(job.tempPath);
    const readArrived: ReadAt = async (offset, length) => {
      await progress.reach(Math.min(offset + length, size), signal);
      return read(offset, length);
    };
    const facts = { filename, size, canPrepare: ctx.media !== undefined };
    if (verdictOf(await sniffRecording(readArrived), facts).verdict !== "as_is") return undefined;
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
