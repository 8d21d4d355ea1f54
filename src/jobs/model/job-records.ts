import { optional } from "../../util/optional.ts";
import type { EventOf, JobEventType } from "./events.ts";
import type { Job, JobIn, NoteInputs, Stage } from "./job.ts";

/** For each event a stage takes, the job it becomes; undefined when the event makes no sense. */
export type Reducers<S extends Stage> = {
  [T in JobEventType]?: (job: JobIn<S>, event: EventOf<T>, now: number) => Job | undefined;
};

export const NEW_POLL = { pollAttempt: 0, progress: null } as const;

export const MAX_RELINKS = 3;

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
    // A first status post of unknown outcome is looked for in every later stage.
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

export function enter<S extends Stage>(job: Job, stage: S, now: number, fields: StageFields<S>) {
  return {
    ...commonOf(job),
    ...fields,
    stage,
    stageStartedAt: now,
    attempts: 0,
    wakeAt: now,
  } as JobIn<S>;
}

export function advance<J extends { attempts: number; wakeAt?: number | undefined }>(
  job: J,
  wakeAt: number,
  changes: Partial<J>,
): J {
  return { ...job, ...changes, attempts: 0, wakeAt };
}

export function startWriting(
  job: Job,
  note: NoteInputs,
  relinks: number,
  delivery: number,
  now: number,
): JobIn<"writing"> {
  return enter(job, "writing", now, { note, task: { ...NEW_POLL }, relinks, delivery });
}
