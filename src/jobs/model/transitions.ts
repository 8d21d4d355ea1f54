import { optional } from "../../util/optional.ts";
import { DELIVERY_REDUCERS } from "./delivery-reducers.ts";
import type { JobEvent, JobEventType } from "./events.ts";
import { type ActiveJob, type Failure, isActive, type Job, type JobIn } from "./job.ts";
import type { ActiveStage, NoteInputs, Stage } from "./job-parts.ts";
import {
  commonOf,
  enter,
  noteInputs,
  type Reducers,
  STAGE_REDUCERS,
  startWriting,
} from "./reducers.ts";

/** A bug, a stale button or a race. */
export class IllegalTransitionError extends Error {
  readonly code = "job_illegal_transition";
  readonly stage: Stage;
  readonly event: JobEventType;

  constructor(stage: Stage, event: JobEventType) {
    super(`A job in stage "${stage}" cannot take the event "${event}".`);
    this.name = this.constructor.name;
    this.stage = stage;
    this.event = event;
  }
}

/**
 * Applies `event` to `job`; throws {@link IllegalTransitionError}. Pure, so every state change is
 * testable without I/O. A stage's own events go to its reducers; these apply to any job.
 */
export function transition(job: Job, event: JobEvent, now: number): Job {
  const next = apply(job, event, now);
  if (next === undefined) throw new IllegalTransitionError(job.stage, event.type);
  if (KEEPS_WAITING.has(event.type) || next.waiting === undefined) {
    return { ...next, updatedAt: now };
  }
  // Anything else is a new try or a way out: the wait it said is over.
  const { waiting: _, ...moved } = next;
  return { ...moved, updatedAt: now } as Job;
}

const KEEPS_WAITING = new Set<JobEventType>(["retry_later", "status_posting", "status_posted"]);

export function canTransition(job: Job, event: JobEvent): boolean {
  return apply(job, event, job.updatedAt) !== undefined;
}

function apply(job: Job, event: JobEvent, now: number): Job | undefined {
  switch (event.type) {
    case "status_posting":
      return { ...job, statusPostingAt: event.at };
    case "status_posted": {
      const { statusPostingAt: _, ...posted } = job;
      return { ...posted, statusTs: event.ts } as Job;
    }
    case "retry_later":
      return isActive(job) ? retryLater(job, event) : undefined;
    case "failed":
      return isActive(job) ? fail(job, event.failure, event.retryable, now) : undefined;
    case "canceled":
      return isActive(job) ? cancel(job, event.by, now) : undefined;
    case "retried":
      return job.stage === "failed" && job.retryable ? retry(job, now) : undefined;
    case "regenerate":
      return regenerate(job, event, now);
    default:
      return isActive(job) ? reduceInStage(job, event, now) : undefined;
  }
}

const REDUCERS: { [S in ActiveStage]: Reducers<S> } = { ...STAGE_REDUCERS, ...DELIVERY_REDUCERS };

/** A stage's own events: its reducers say what they make of the job. */
function reduceInStage(job: ActiveJob, event: JobEvent, now: number): Job | undefined {
  const reducers = REDUCERS[job.stage] as Reducers<ActiveStage>;
  const reducer = reducers[event.type] as
    | ((job: ActiveJob, event: JobEvent, now: number) => Job | undefined)
    | undefined;
  return reducer?.(job, event, now);
}

function retryLater(job: ActiveJob, event: Extract<JobEvent, { type: "retry_later" }>): Job {
  const { waiting: _, ...rest } = job;
  const waiting = optional("waiting", event.waiting);
  return { ...rest, ...waiting, attempts: job.attempts + 1, wakeAt: event.wakeAt } as Job;
}

function fail(job: ActiveJob, failure: Failure, retryable: boolean, now: number): Job {
  return {
    ...commonOf(job),
    stage: "failed",
    failedStage: job.stage,
    failure,
    retryable,
    resume: job,
    finishedAt: now,
  };
}

function cancel(job: ActiveJob, by: string, now: number): Job {
  return {
    ...commonOf(job),
    stage: "canceled",
    canceledStage: job.stage,
    canceledBy: by,
    finishedAt: now,
  };
}

/**
 * Remote tasks are submitted again; a transcription starts over from
 * the download, as the temp audio went once the service had it.
 */
function retry(job: JobIn<"failed">, now: number): Job {
  const resumed = {
    ...job.resume,
    ...optional("statusTs", job.statusTs),
  };
  switch (resumed.stage) {
    case "downloading":
    case "preparing":
    case "transcribing":
      return enter(resumed, "queued", now, {});
    case "writing":
      return startWriting(resumed, resumed.note, resumed.relinks, resumed.delivery, now);
    default:
      return { ...resumed, attempts: 0, wakeAt: now, stageStartedAt: now };
  }
}

function regenerate(job: Job, event: Extract<JobEvent, { type: "regenerate" }>, now: number) {
  const last = lastNoteOf(job);
  if (last === undefined) return undefined;
  const { note } = last;
  // New names bring their own members; without new names the earlier ones stand.
  const members = event.speakerMap === undefined ? note.members : event.members;
  const inputs = noteInputs(
    note,
    event.speakerMap ?? note.speakerMap,
    members,
    event.contextText ?? note.contextText,
    event.templateId ?? note.templateId,
  );
  // A refused canvas is asked for again: the admin may have allowed canvases since.
  const { canvasRefused: _, ...writing } = startWriting(job, inputs, 0, last.delivery + 1, now);
  return { ...writing, regeneratedAt: now };
}

/**
 * The note a Regenerate rewrites, and its delivery: when the job got as far as naming the
 * speakers, or its note waits in full for its review.
 */
function lastNoteOf(job: Job): { note: NoteInputs; delivery: number } | undefined {
  if (job.stage === "done" || (job.stage === "reviewing" && job.ready === true)) return job;
  if (job.stage === "failed" && "note" in job.resume) return job.resume;
  return undefined;
}
