import { randomBytes } from "node:crypto";
import { readdir, rm, rmdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { audioFormatOf } from "../../recordings/index.ts";
import { optional } from "../../util/optional.ts";
import type { EventOf, JobEventType } from "../events.ts";
import type { Job, JobIn, NoteInputs, Stage } from "../job.ts";
import type { StepContext } from "../step.ts";
import { TempFiles } from "../temp-files.ts";

/**
 * What a stage module holds beside its step: for each event the stage takes, the job it
 * becomes (pure; undefined when the event makes no sense as the job stands).
 */
export type Reducers<S extends Stage> = {
  [T in JobEventType]?: (job: JobIn<S>, event: EventOf<T>, now: number) => Job | undefined;
};

/** A remote task not yet polled. */
export const NEW_POLL = { pollAttempt: 0, progress: null } as const;

/** How many times a note may be rewritten because its DOCX link expired before download. */
export const MAX_RELINKS = 3;

/** The common part of a job with every stage-specific field dropped. */
export function commonOf(job: Job) {
  const { id, createdAt, updatedAt, stageStartedAt, origin, source, options, statusTs } = job;
  const { attempts, regeneratedAt, transcript, canvas, canvasRefused, statusPostingAt } = job;
  return {
    id,
    createdAt,
    updatedAt,
    stageStartedAt,
    origin,
    source,
    options,
    attempts,
    ...optional("statusTs", statusTs),
    // A first status post of no known outcome is looked for in every stage after it.
    ...optional("statusPostingAt", statusPostingAt),
    ...optional("regeneratedAt", regeneratedAt),
    ...optional("transcript", transcript),
    ...optional("canvas", canvas),
    ...optional("canvasRefused", canvasRefused),
  };
}

type StageFields<S extends Stage> = Omit<
  JobIn<S>,
  keyof ReturnType<typeof commonOf> | "stage" | "wakeAt"
>;

/** Moves the job into a new stage, due for its first step at once. */
export function enter<S extends Stage>(job: Job, stage: S, now: number, fields: StageFields<S>) {
  // The one assertion of the stage modules: the spread is the stage's record by construction.
  return {
    ...commonOf(job),
    ...fields,
    stage,
    stageStartedAt: now,
    attempts: 0,
    wakeAt: now,
  } as JobIn<S>;
}

/** The job's step did its work and stays in its stage: attempts start again, next step due at `wakeAt`. */
export function advance<J extends { attempts: number; wakeAt?: number | undefined }>(
  job: J,
  wakeAt: number,
  changes: Partial<J>,
): J {
  return { ...job, ...changes, attempts: 0, wakeAt };
}

/** Into `writing`, for the first note (names given) or another (Regenerate, expired link). */
export function startWriting(
  job: Job,
  note: NoteInputs,
  relinks: number,
  delivery: number,
  now: number,
): JobIn<"writing"> {
  return enter(job, "writing", now, { note, task: { ...NEW_POLL }, relinks, delivery });
}

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
