import type { Dialog, Progress, SpeakerMapEntry } from "../notetaker/index.ts";
import {
  type ActiveJob,
  type Failure,
  isActive,
  type Job,
  type JobIn,
  type NoteInputs,
  type SpeakerSummary,
  type Stage,
} from "./job.ts";

/**
 * Everything that can happen to a job. `transition` is pure: the runner does the I/O, then
 * records what happened through an event, so every state change is testable without I/O.
 */
export type JobEvent =
  | { type: "status_posted"; ts: string }
  | { type: "admission_waiting"; ahead: number; wakeAt: number }
  | { type: "download_started"; tempPath: string }
  | { type: "downloaded" }
  | { type: "source_missing"; tempPath: string }
  | { type: "audio_submitting" }
  | { type: "audio_submitted"; taskId: string; wakeAt: number }
  | { type: "audio_polled"; progress: Progress | null; wakeAt: number }
  | { type: "transcribed"; dialog: Dialog; speakers: SpeakerSummary[] }
  | { type: "awaiting_names" }
  | {
      type: "names_given";
      speakerMap: SpeakerMapEntry[];
      contextText?: string;
      templateId?: string;
    }
  | { type: "naming_skipped" }
  | { type: "note_submitting" }
  | { type: "note_submitted"; taskId: string; wakeAt: number }
  | { type: "note_polled"; wakeAt: number }
  | { type: "note_written"; markdown: string; docxUrl: string }
  | { type: "docx_downloaded"; docxPath: string }
  | { type: "docx_link_expired" }
  | { type: "part_posting"; index: number }
  | { type: "part_posted"; index: number }
  | { type: "docx_uploading" }
  | { type: "docx_uploaded"; fileId: string }
  | { type: "delivery_reconciled"; postedParts: number; docxFileId: string | undefined }
  | { type: "delivered" }
  | { type: "retry_later"; wakeAt: number }
  | { type: "failed"; failure: Failure; retryable: boolean }
  | { type: "canceled"; by: string }
  | { type: "retried" }
  | {
      type: "regenerate";
      speakerMap?: SpeakerMapEntry[];
      contextText?: string;
      templateId?: string;
    };

export type JobEventType = JobEvent["type"];

/** An event that makes no sense in the job's stage: a bug, a stale button or a race. */
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

/** How many times a note may be rewritten because its DOCX link expired before download. */
export const MAX_RELINKS = 3;

const NEW_POLL = { pollAttempt: 0, progress: null } as const;

/** Applies `event` to `job` at time `now`; throws {@link IllegalTransitionError} if illegal. */
export function transition(job: Job, event: JobEvent, now: number): Job {
  const next = apply(job, event, now);
  if (next === undefined) throw new IllegalTransitionError(job.stage, event.type);
  return { ...next, updatedAt: now };
}

/** Whether `event` may be applied to `job`. */
export function canTransition(job: Job, event: JobEvent): boolean {
  return apply(job, event, job.updatedAt) !== undefined;
}

function apply(job: Job, event: JobEvent, now: number): Job | undefined {
  switch (event.type) {
    case "status_posted":
      return { ...job, statusTs: event.ts };
    case "retry_later":
      return isActive(job)
        ? { ...job, attempts: job.attempts + 1, wakeAt: event.wakeAt }
        : undefined;
    case "failed":
      return isActive(job) ? fail(job, event.failure, event.retryable, now) : undefined;
    case "canceled":
      return isActive(job) ? cancel(job, event.by, now) : undefined;
    case "retried":
      return job.stage === "failed" && job.retryable ? retry(job, now) : undefined;
    case "regenerate":
      return regenerate(job, event, now);
    default:
      return applyStageEvent(job, event, now);
  }
}

function applyStageEvent(job: Job, event: JobEvent, now: number): Job | undefined {
  const fresh = { attempts: 0, wakeAt: now };
  switch (`${job.stage}:${event.type}`) {
    case "queued:admission_waiting": {
      const e = event as Extract<JobEvent, { type: "admission_waiting" }>;
      return { ...(job as JobIn<"queued">), attempts: 0, wakeAt: e.wakeAt, ahead: e.ahead };
    }
    case "queued:download_started":
      return enter(job, "downloading", now, { tempPath: field(event, "tempPath") });
    case "downloading:downloaded": {
      const { tempPath } = job as JobIn<"downloading">;
      return enter(job, "transcribing", now, { tempPath, audio: { ...NEW_POLL } });
    }
    case "transcribing:source_missing": {
      // The recording is not on this disk (another replica downloaded it): fetch it again.
      const j = job as JobIn<"transcribing">;
      if (j.audio.taskId !== undefined) return undefined;
      return enter(j, "downloading", now, { tempPath: field(event, "tempPath") });
    }
    case "transcribing:audio_submitting": {
      const j = job as JobIn<"transcribing">;
      return { ...j, ...fresh, audio: { ...j.audio, submittedAt: now } };
    }
    case "transcribing:audio_submitted": {
      const j = job as JobIn<"transcribing">;
      const { tempPath: _, ...rest } = j;
      const e = event as Extract<JobEvent, { type: "audio_submitted" }>;
      return { ...rest, attempts: 0, wakeAt: e.wakeAt, audio: { ...j.audio, taskId: e.taskId } };
    }
    case "transcribing:audio_polled": {
      const j = job as JobIn<"transcribing">;
      const e = event as Extract<JobEvent, { type: "audio_polled" }>;
      const audio = { ...j.audio, pollAttempt: j.audio.pollAttempt + 1, progress: e.progress };
      return { ...j, attempts: 0, wakeAt: e.wakeAt, audio };
    }
    case "transcribing:transcribed": {
      const e = event as Extract<JobEvent, { type: "transcribed" }>;
      return enter(job, "naming", now, { dialog: e.dialog, speakers: e.speakers });
    }
    case "naming:awaiting_names": {
      const { wakeAt: _, ...waiting } = job as JobIn<"naming">;
      return { ...waiting, attempts: 0 };
    }
    case "naming:names_given": {
      const j = job as JobIn<"naming">;
      const e = event as Extract<JobEvent, { type: "names_given" }>;
      return startWriting(j, noteInputs(j, e.speakerMap, e.contextText, e.templateId), 0, 1, now);
    }
    case "naming:naming_skipped": {
      const j = job as JobIn<"naming">;
      return startWriting(j, noteInputs(j, [], undefined, undefined), 0, 1, now);
    }
    case "writing:note_submitting": {
      const j = job as JobIn<"writing">;
      return { ...j, ...fresh, task: { ...j.task, submittedAt: now } };
    }
    case "writing:note_submitted": {
      const j = job as JobIn<"writing">;
      const e = event as Extract<JobEvent, { type: "note_submitted" }>;
      return { ...j, attempts: 0, wakeAt: e.wakeAt, task: { ...j.task, taskId: e.taskId } };
    }
    case "writing:note_polled": {
      const j = job as JobIn<"writing">;
      const e = event as Extract<JobEvent, { type: "note_polled" }>;
      const task = { ...j.task, pollAttempt: j.task.pollAttempt + 1 };
      return { ...j, attempts: 0, wakeAt: e.wakeAt, task };
    }
    case "writing:note_written": {
      const j = job as JobIn<"writing">;
      const e = event as Extract<JobEvent, { type: "note_written" }>;
      return enter(j, "delivering", now, {
        note: j.note,
        markdown: e.markdown,
        docxUrl: e.docxUrl,
        relinks: j.relinks,
        delivery: j.delivery,
        postedParts: 0,
      });
    }
    case "delivering:docx_downloaded":
      return { ...(job as JobIn<"delivering">), ...fresh, docxPath: field(event, "docxPath") };
    case "delivering:docx_link_expired": {
      const j = job as JobIn<"delivering">;
      if (j.postedParts > 0 || j.relinks >= MAX_RELINKS) return undefined;
      return startWriting(j, j.note, j.relinks + 1, j.delivery, now);
    }
    case "delivering:part_posting":
      return { ...(job as JobIn<"delivering">), postingPart: field(event, "index") };
    case "delivering:part_posted": {
      const { postingPart: _, ...j } = job as JobIn<"delivering">;
      return { ...j, ...fresh, postedParts: Math.max(j.postedParts, field(event, "index") + 1) };
    }
    case "delivering:docx_uploading":
      return { ...(job as JobIn<"delivering">), uploadingDocx: true };
    case "delivering:docx_uploaded": {
      const { uploadingDocx: _, ...j } = job as JobIn<"delivering">;
      return { ...j, ...fresh, docxFileId: field(event, "fileId") };
    }
    case "delivering:delivery_reconciled": {
      const {
        postingPart: _p,
        uploadingDocx: _u,
        docxFileId: _d,
        ...j
      } = job as JobIn<"delivering">;
      const e = event as Extract<JobEvent, { type: "delivery_reconciled" }>;
      const docx = e.docxFileId === undefined ? {} : { docxFileId: e.docxFileId };
      // Reading the thread is no progress: `attempts` stays, so a post that keeps failing
      // still reaches the failure policy's limit.
      return { ...j, wakeAt: now, postedParts: e.postedParts, ...docx };
    }
    case "delivering:delivered": {
      const j = job as JobIn<"delivering">;
      const { docxUrl: _u, docxPath: _p, postedParts, relinks: _r, ...rest } = j;
      const { wakeAt: _w, ...finished } = rest;
      return { ...finished, stage: "done", partsPosted: postedParts, finishedAt: now };
    }
    default:
      return undefined;
  }
}

/** Reads a field of the event the `switch` above has already narrowed by its type. */
function field<K extends string>(event: JobEvent, key: K) {
  return (event as unknown as Record<K, Extract<JobEvent, Record<K, unknown>>[K]>)[key];
}

/** The common part of a job with every stage-specific field dropped. */
function commonOf(job: Job) {
  const { id, createdAt, updatedAt, stageStartedAt, origin, source, options, statusTs } = job;
  const { attempts, regeneratedAt } = job;
  return {
    id,
    createdAt,
    updatedAt,
    stageStartedAt,
    origin,
    source,
    options,
    attempts,
    ...(statusTs === undefined ? {} : { statusTs }),
    ...(regeneratedAt === undefined ? {} : { regeneratedAt }),
  };
}

/** Moves the job into a new stage, due for its first step at once. */
function enter<S extends Stage>(
  job: Job,
  stage: S,
  now: number,
  fields: Omit<JobIn<S>, keyof ReturnType<typeof commonOf> | "stage" | "wakeAt">,
): Job {
  return {
    ...commonOf(job),
    ...fields,
    stage,
    stageStartedAt: now,
    attempts: 0,
    wakeAt: now,
  } as Job;
}

function noteInputs(
  job: JobIn<"naming">,
  speakerMap: SpeakerMapEntry[],
  contextText: string | undefined,
  templateId: string | undefined,
): NoteInputs {
  const context = contextText ?? job.options.contextText;
  const template = templateId ?? job.options.templateId;
  return {
    dialog: job.dialog,
    speakers: job.speakers,
    speakerMap,
    ...(context === undefined ? {} : { contextText: context }),
    ...(template === undefined ? {} : { templateId: template }),
  };
}

function startWriting(
  job: Job,
  note: NoteInputs,
  relinks: number,
  delivery: number,
  now: number,
): Job {
  return enter(job, "writing", now, { note, task: { ...NEW_POLL }, relinks, delivery });
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
 * Resumes a failed job where it failed. A remote task is submitted again (it failed or was
 * lost); a transcription starts over from the download, because the temp audio is deleted
 * as soon as the service has it.
 */
function retry(job: JobIn<"failed">, now: number): Job {
  const resumed = {
    ...job.resume,
    ...(job.statusTs === undefined ? {} : { statusTs: job.statusTs }),
  };
  switch (resumed.stage) {
    case "downloading":
    case "transcribing":
      return enter(resumed, "queued", now, {});
    case "writing":
      return startWriting(resumed, resumed.note, resumed.relinks, resumed.delivery, now);
    default:
      return { ...resumed, attempts: 0, wakeAt: now, stageStartedAt: now };
  }
}

/** Reruns only the note step, with new names, context or template when given. */
function regenerate(job: Job, event: Extract<JobEvent, { type: "regenerate" }>, now: number) {
  const note = noteOf(job);
  if (note === undefined) return undefined;
  const contextText = event.contextText ?? note.contextText;
  const templateId = event.templateId ?? note.templateId;
  const inputs: NoteInputs = {
    dialog: note.dialog,
    speakers: note.speakers,
    speakerMap: event.speakerMap ?? note.speakerMap,
    ...(contextText === undefined ? {} : { contextText }),
    ...(templateId === undefined ? {} : { templateId }),
  };
  const writing = startWriting(job, inputs, 0, (deliveryOf(job) ?? 0) + 1, now);
  return { ...writing, regeneratedAt: now };
}

/** The number of the last note delivery of a finished or failed job. */
function deliveryOf(job: Job): number | undefined {
  if (job.stage === "done") return job.delivery;
  if (job.stage === "failed" && "delivery" in job.resume) return job.resume.delivery;
  return undefined;
}

/** The note inputs of a finished or failed job, when it got as far as naming the speakers. */
export function noteOf(job: Job): NoteInputs | undefined {
  if (job.stage === "done") return job.note;
  if (job.stage === "failed" && "note" in job.resume) return job.resume.note;
  return undefined;
}
