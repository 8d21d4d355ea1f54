import { randomBytes } from "node:crypto";
import { open, readdir, rm, rmdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  audioFormatOf,
  type ReadAt,
  type Sniffed,
  sniffRecording,
} from "../../recordings/index.ts";
import type { Job } from "../model/job.ts";
import { TempFiles } from "./temp-files.ts";

/** What a job's file names need of a step: where the temp folder is. */
type Where = { tempDir: string };

/**
 * In the job's own folder: the start-up sweep knows whose it
 * is, and FFmpeg reading it reaches nothing of another job.
 */
export function jobFile(ctx: Where, job: Job, name: string): string {
  return join(TempFiles.folderOf(ctx.tempDir, job.id), name);
}

/**
 * An attempt cut short may still be unwinding, deleting its
 * own file, while the next one writes: each has its own name.
 */
export function attemptFile(ctx: Where, job: Job, stem: string, extension: string): string {
  return jobFile(ctx, job, `${stem}-${randomBytes(4).toString("hex")}${extension}`);
}

/** Run as an attempt starts, under the job's lease: no later attempt can have written yet. */
export async function removeEarlierAttempts(
  ctx: Where,
  job: Job,
  keep: readonly string[],
): Promise<void> {
  const folder = jobFile(ctx, job, "");
  const names = await readdir(folder).catch(() => []);
  const stale = names.map((name) => join(folder, name)).filter((path) => !keep.includes(path));
  await Promise.all(stale.map((path) => rm(path, { force: true, recursive: true })));
}

export async function removeJobFile(ctx: Where, path: string): Promise<void> {
  await rm(path, { force: true });
  const folder = dirname(path);
  if (dirname(folder) === ctx.tempDir) await rmdir(folder).catch(() => undefined);
}

/** The extension is a known audio format, never a piece of the file's name. */
export function audioPath(ctx: Where, job: Job): string {
  return jobFile(ctx, job, `source${sourceExtension(job)}`);
}

export function sourceAttemptPath(ctx: Where, job: Job): string {
  return attemptFile(ctx, job, "source", sourceExtension(job));
}

function sourceExtension(job: Job): string {
  return `.${audioFormatOf(job.source.filename) ?? "audio"}`;
}

/** On this disk: another replica's is not this one. */
export async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** What the file at `path` is, from its bytes. */
export function sniffFile(path: string): Promise<Sniffed> {
  return sniffRecording(fileReader(path));
}

/** Never more than asked for, fewer at the end. */
export function fileReader(path: string): ReadAt {
  return async (offset, length) => {
    const handle = await open(path, "r");
    try {
      const buffer = new Uint8Array(length);
      let filled = 0;
      // One read may return less than asked for.
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  };
}
