import { stat } from "node:fs/promises";
import { MAX_AUDIO_BYTES } from "../../recordings/index.ts";
import { optional } from "../../util/optional.ts";
import { JobStepError } from "../engine/failure-policy.ts";
import type { StepContext } from "../engine/step.ts";
import { checkDownload } from "../files/check-download.ts";
import { removeEarlierAttempts, removeJobFile, sourceAttemptPath } from "../files/job-files.ts";
import { mayRelay, startRelay } from "../files/relay.ts";
import { TempFiles } from "../files/temp-files.ts";
import type { Job, JobIn } from "../model/job.ts";
import { enter, NEW_POLL, type Reducers } from "../model/job-records.ts";

export const downloadingReducers: Reducers<"downloading"> = {
  // Not `advance`: the attempts of a failing download keep counting.
  download_attempt: (job, event, now) => ({
    ...job,
    tempPath: event.tempPath,
    ...(event.relay ? { relayStartedAt: now } : {}),
  }),
  relayed: (job, event, now) =>
    enter(job, "transcribing", now, {
      audio: {
        ...NEW_POLL,
        taskId: event.taskId,
        ...optional("submittedAt", job.relayStartedAt),
      },
    }),
  downloaded: (job, event, now) =>
    event.prepare === true
      ? enter(job, "preparing", now, { tempPath: job.tempPath })
      : enter(job, "transcribing", now, { tempPath: job.tempPath, audio: { ...NEW_POLL } }),
};

/**
 * A recording that goes as it is is uploaded while it downloads (`relay.ts`); one the service would
 * refuse goes to `preparing` when FFmpeg is there.
 */
export async function downloadingStep(ctx: StepContext, job: JobIn<"downloading">): Promise<Job> {
  // Each attempt's file is named in the record before a byte is
  // written, with the relay's intent: the API has no idempotency key.
  const tempPath = sourceAttemptPath(ctx, job);
  const relay = mayRelay(job);
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

/** A failure here deletes the copy before any other Note Service call. */
async function check(ctx: StepContext, job: JobIn<"downloading">): Promise<"as_is" | "prepare"> {
  const size = await stat(job.tempPath).then(
    (s) => s.size,
    () => 0,
  );
  if (size === 0) throw new JobStepError({ code: "download_failed" }, true);
  return checkDownload(job.tempPath, {
    filename: job.source.filename,
    size,
    canPrepare: ctx.media !== undefined,
  });
}
