import type { z } from "zod";
import type { SpeakerName } from "../../notetaker/index.ts";
import { optional } from "../../util/optional.ts";
import type { EventOf, JobEventType } from "./events.ts";
import { commonSchema, type Job, type JobIn } from "./job.ts";
import type { NoteInputs, Stage } from "./job-parts.ts";
import { inline } from "./stored.ts";

/** For each event a stage takes, the job it becomes; undefined when the event makes no sense. */
export type Reducers<S extends Stage> = {
  [T in JobEventType]?: (job: JobIn<S>, event: EventOf<T>, now: number) => Job | undefined;
};

export const NEW_POLL = { pollAttempt: 0, progress: null } as const;

export const MAX_RELINKS = 3;

/** What every stage keeps of a job: all but its due time (a finished job has none) and its wait. */
type Common = Omit<z.infer<typeof commonSchema>, "wakeAt" | "waiting">;
const COMMON_KEYS = commonSchema.keyof().options.filter((k) => k !== "wakeAt" && k !== "waiting");

export function commonOf(job: Job): Common {
  const kept = COMMON_KEYS.filter((key) => job[key] !== undefined).map((key) => [key, job[key]]);
  return Object.fromEntries(kept) as Common;
}

type StageFields<S extends Stage> = Omit<JobIn<S>, keyof Common | "stage" | "wakeAt">;

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

/** What a note is written from: the transcript, the names, and the context and template. */
export function noteInputs(
  heard: Pick<NoteInputs, "dialog" | "speakers" | "quotes">,
  speakerMap: SpeakerName[],
  members: Record<string, string> | undefined,
  contextText: string | undefined,
  templateId: string | undefined,
): NoteInputs {
  return {
    dialog: heard.dialog,
    speakers: heard.speakers,
    quotes: heard.quotes,
    speakerMap,
    ...(members === undefined || Object.keys(members).length === 0 ? {} : { members }),
    ...optional("contextText", contextText),
    ...optional("templateId", templateId),
  };
}

const queued: Reducers<"queued"> = {
  admission_waiting: (job, event) => advance(job, event.wakeAt, { ahead: event.ahead }),
  download_started: (job, event, now) =>
    enter(job, "downloading", now, { tempPath: event.tempPath }),
};

const downloading: Reducers<"downloading"> = {
  // Not `advance`: the attempts of a failing download keep counting.
  download_attempt: (job, event, now) => ({
    ...job,
    tempPath: event.tempPath,
    ...(event.relay ? { relayStartedAt: now } : {}),
  }),
  relayed: (job, event, now) =>
    enter(job, "transcribing", now, {
      audio: { ...NEW_POLL, taskId: event.taskId, ...optional("submittedAt", job.relayStartedAt) },
    }),
  downloaded: (job, event, now) =>
    event.prepare === true
      ? enter(job, "preparing", now, { tempPath: job.tempPath })
      : enter(job, "transcribing", now, { tempPath: job.tempPath, audio: { ...NEW_POLL } }),
};

const preparing: Reducers<"preparing"> = {
  source_missing: (job, event, now) => enter(job, "downloading", now, { tempPath: event.tempPath }),
  prepared: (job, event, now) =>
    enter(job, "transcribing", now, {
      tempPath: event.tempPath,
      audioName: event.audioName,
      audio: { ...NEW_POLL },
    }),
};

const transcribing: Reducers<"transcribing"> = {
  // Another replica downloaded it: fetch it again here.
  source_missing: (job, event, now) =>
    job.audio.taskId === undefined
      ? enter(job, "downloading", now, { tempPath: event.tempPath })
      : undefined,
  audio_submitting: (job, _event, now) =>
    advance(job, now, { audio: { ...job.audio, submittedAt: now } }),
  audio_submitted: ({ tempPath: _, ...job }, event) =>
    advance(job, event.wakeAt, { audio: { ...job.audio, taskId: event.taskId } }),
  audio_polled: (job, event) =>
    advance(job, event.wakeAt, {
      audio: {
        ...job.audio,
        pollAttempt: job.audio.pollAttempt + 1,
        progress: event.progress,
        ...optional("trail", event.trail ?? job.audio.trail),
      },
    }),
  transcribed: (job, event, now) =>
    enter(job, "naming", now, {
      dialog: inline(event.dialog),
      speakers: event.speakers,
      quotes: inline(event.quotes),
    }),
};

const naming: Reducers<"naming"> = {
  awaiting_names: ({ wakeAt: _, ...job }) => ({ ...job, attempts: 0 }),
  names_given: (job, event, now) => {
    const context = event.contextText ?? job.options.contextText;
    const template = event.templateId ?? job.options.templateId;
    const note = noteInputs(job, event.speakerMap, event.members, context, template);
    return startWriting(job, note, 0, 1, now);
  },
  naming_skipped: (job, _event, now) => {
    const note = noteInputs(job, [], undefined, job.options.contextText, job.options.templateId);
    return startWriting(job, note, 0, 1, now);
  },
};

const writing: Reducers<"writing"> = {
  note_submitting: (job, _event, now) =>
    advance(job, now, { task: { ...job.task, submittedAt: now } }),
  note_submitted: (job, event) =>
    advance(job, event.wakeAt, { task: { ...job.task, taskId: event.taskId } }),
  note_polled: (job, event) =>
    advance(job, event.wakeAt, {
      task: {
        ...job.task,
        pollAttempt: job.task.pollAttempt + 1,
        ...optional("trail", event.trail ?? job.task.trail),
      },
    }),
  note_written: (job, event, now) => {
    const written = {
      note: job.note,
      markdown: inline(event.markdown),
      docxUrl: event.docxUrl,
      relinks: job.relinks,
      delivery: job.delivery,
      postedParts: 0,
    };
    return event.reviewUntil === undefined
      ? enter(job, "delivering", now, written)
      : enter(job, "reviewing", now, { ...written, expiresAt: event.reviewUntil });
  },
};

export const STAGE_REDUCERS = { queued, downloading, preparing, transcribing, naming, writing };
