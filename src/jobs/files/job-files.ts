import { randomBytes } from "node:crypto";
import { readdir, rm, rmdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { audioFormatOf } from "../../recordings/index.ts";
import type { StepContext } from "../engine/step.ts";
import type { Job } from "../model/job.ts";
import { TempFiles } from "./temp-files.ts";

/**
 * A file of the job in its own folder (`TempFiles`): start-up clean-up knows whose it is,
 * and FFmpeg reading it can reach nothing of another job.
 */
export function jobFile(ctx: StepContext, job: Job, name: string): string {
  return join(TempFiles.folderOf(ctx.tempDir, job.id), name);
}

/**
 * A new file of the job for one attempt of a step (`source-1a2b3c4d.m4a`): an attempt cut
 * short (its lease lost, a cancel) may still be unwinding, deleting its own file, while the
 * next attempt writes; with a name each, neither touches the other's.
 */
export function attemptFile(ctx: StepContext, job: Job, stem: string, extension: string): string {
  return jobFile(ctx, job, `${stem}-${randomBytes(4).toString("hex")}${extension}`);
}

/**
 * Deletes what earlier attempts of a step left in the job's folder (a crash, an aborted
 * attempt), all but the files in `keep`. Run as an attempt starts, under the job's lease:
 * no later attempt can have written anything yet, and an earlier one is over or aborted.
 */
export async function removeEarlierAttempts(
  ctx: StepContext,
  job: Job,
  keep: readonly string[],
): Promise<void> {
  const folder = jobFile(ctx, job, "");
  const names = await readdir(folder).catch(() => []);
  const stale = names.map((name) => join(folder, name)).filter((path) => !keep.includes(path));
  await Promise.all(stale.map((path) => rm(path, { force: true, recursive: true })));
}

/** Deletes a file of the job, and the job's folder once nothing else is in it. */
export async function removeJobFile(ctx: StepContext, path: string): Promise<void> {
  await rm(path, { force: true });
  const folder = dirname(path);
  if (dirname(folder) === ctx.tempDir) await rmdir(folder).catch(() => undefined);
}

/**
 * Where the recording is to be downloaded, as a job enters `downloading`; each download
 * attempt then picks a name of its own ({@link sourceAttemptPath}). The extension is one of
 * the known audio formats, never a piece of the file's name.
 */
export function audioPath(ctx: StepContext, job: Job): string {
  return jobFile(ctx, job, `source${sourceExtension(job)}`);
}

/** The file one download attempt writes the recording to. */
export function sourceAttemptPath(ctx: StepContext, job: Job): string {
  return attemptFile(ctx, job, "source", sourceExtension(job));
}

function sourceExtension(job: Job): string {
  return `.${audioFormatOf(job.source.filename) ?? "audio"}`;
}

/** Whether a regular file is at `path` on this disk (another replica's disk is not this one). */
export async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}
