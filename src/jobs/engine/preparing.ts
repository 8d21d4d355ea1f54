import { rename, rm, stat } from "node:fs/promises";
import { dirname, extname } from "node:path";
import { demuxerOf, MAX_AUDIO_BYTES } from "../../recordings/index.ts";
import {
  attemptFile,
  audioPath,
  isFile,
  removeEarlierAttempts,
  sniffFile,
} from "../files/job-files.ts";
import { TempFiles } from "../files/temp-files.ts";
import type { Job, JobIn } from "../model/job.ts";
import type { PrepareOutcome } from "../ports.ts";
import { JobStepError } from "./failure-policy.ts";
import type { StepContext } from "./step-context.ts";

/**
 * FFmpeg reads the download with the demuxer its bytes are (sniffed again: the disk is the truth).
 * Each attempt's files have their own names, so one unwinding never deletes the next's.
 */
export async function preparingStep(ctx: StepContext, job: JobIn<"preparing">): Promise<Job> {
  const { media } = ctx;
  if (media === undefined) {
    // FFmpeg was there when the job was downloaded, and is gone since (a new image).
    throw new JobStepError({ code: "prepare_failed", detail: "no_ffmpeg" }, true);
  }
  const inOwnFolder = dirname(job.tempPath) === TempFiles.folderOf(ctx.tempDir, job.id);
  if (!inOwnFolder || !(await isFile(job.tempPath))) {
    // Downloaded by another replica, lost with a container's disk, or kept by an earlier version:
    // download it again, into the job's own folder.
    if (!inOwnFolder) await rm(job.tempPath, { force: true });
    return ctx.commit(job, { type: "source_missing", tempPath: audioPath(ctx, job) });
  }
  await removeEarlierAttempts(ctx, job, [job.tempPath]);
  const demuxer = demuxerOf(await sniffFile(job.tempPath));
  if (demuxer === undefined) throw new JobStepError({ code: "not_audio" }, false);
  const output = preparedPath(ctx, job);
  const partial = `${output}.part`;
  let shown: JobIn<"preparing"> = job;
  // One redraw at a time, awaited before the next save: a late one never overwrites it.
  let drawing = Promise.resolve();
  const outcome = await media
    .prepare({
      input: job.tempPath,
      demuxer,
      output: partial,
      signal: ctx.signal,
      onProgress: (fraction) => {
        // Drawn, not saved: a lost progress figure costs nothing.
        drawing = drawing
          .then(async () => {
            const next = await ctx.showStatus({ ...shown, fraction }, "progress");
            if (next.stage === "preparing") shown = next;
          })
          // Only a save can fail here (canceled, lease lost): the step's own next save says so.
          .catch((error: unknown) => ctx.logger.debug({ err: error }, "progress not drawn"));
      },
    })
    .catch(async (error: unknown) => {
      await rm(partial, { force: true });
      throw error;
    });
  if (!outcome.ok) {
    await rm(partial, { force: true });
    throw failureOf(outcome);
  }
  const size = (await stat(partial)).size;
  if (size > MAX_AUDIO_BYTES) {
    await rm(partial, { force: true });
    throw new JobStepError({ code: "prepared_too_large" }, false);
  }
  await rename(partial, output);
  await drawing;
  const prepared = await ctx
    .commit(shown, {
      type: "prepared",
      tempPath: output,
      audioName: preparedNameOf(job.source.filename),
    })
    .catch(async (error: unknown) => {
      // Not recorded: no one will read this attempt's output.
      await rm(output, { force: true });
      throw error;
    });
  await rm(job.tempPath, { force: true });
  return ctx.showStatus(prepared, "stage");
}

/** The admin's time limit may pass on a quieter machine (Retry); the rest is what the file is. */
function failureOf(outcome: Exclude<PrepareOutcome, { ok: true }>): JobStepError {
  switch (outcome.reason) {
    case "timeout":
      return new JobStepError({ code: "timeout", detail: String(outcome.minutes) }, true);
    case "too_long":
      return new JobStepError({ code: "too_long", detail: outcome.detail }, false);
    default:
      return new JobStepError({ code: outcome.reason }, false);
  }
}

export function preparedPath(ctx: StepContext, job: Job): string {
  return attemptFile(ctx, job, "prepared", ".ogg");
}

export function preparedNameOf(filename: string): string {
  const ext = extname(filename);
  const stem = (ext === "" ? filename : filename.slice(0, -ext.length)) || "recording";
  return `${stem}.ogg`;
}
