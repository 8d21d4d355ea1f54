import { optional } from "../../util/optional.ts";
import type { EventOf, JobEventType } from "./events.ts";
import type { Job, JobIn, NoteInputs, Stage } from "./job.ts";

/*
 * Pure builders of job records: the part every stage shares, entering a stage, advancing in
 * one. The stage modules' reducers and `transitions.ts` build every record through these.
 */

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
  const { attempts, regeneratedAt, transcript, canvas, canvasRefused, statusPostingAt, review } =
    job;
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
    ...optional("review", review),
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
