import type { Job, JobIn, SpeakerQuotes, SpeakerSummary } from "../../../src/jobs/index.ts";
import { inline } from "../../../src/jobs/model/stored.ts";
import { origin, source } from "../../../support/helpers/jobs-kit.ts";

/** Realistic jobs in every stage, built like test/jobs/transitions.test.ts builds them. */

export const T0 = Date.UTC(2025, 0, 15, 9, 0, 0);
/** 3 min 5 s after the job was created. */
export const NOW = T0 + 185_000;

const dialog = [
  {
    speaker_id: "speaker_1",
    start_seconds: 0,
    end_seconds: 40,
    text: "Let's start with the roadmap.",
  },
  {
    speaker_id: "speaker_2",
    start_seconds: 40,
    end_seconds: 70,
    text: "I have the numbers ready.",
  },
  { speaker_id: "speaker_3", start_seconds: 70, end_seconds: 100, text: "Can we talk budget?" },
];

export const speakers: SpeakerSummary[] = [
  { speakerId: "speaker_1", seconds: 810, share: 0.45 },
  { speakerId: "speaker_2", seconds: 630, share: 0.35 },
  { speakerId: "speaker_3", seconds: 360, share: 0.2 },
];
/** The quotes of `speakers`, as `JobService.quotesOf` gives them to the modal. */
export const quotes: SpeakerQuotes = {
  speaker_1: [
    { atSeconds: 12, text: "Let's start with the roadmap & the <!channel> launch." },
    { atSeconds: 754, text: "We ship on Friday unless QA finds something." },
  ],
  speaker_2: [{ atSeconds: 3725, text: "I have the numbers ready, cc <@U999>." }],
  speaker_3: [],
};

const common = {
  id: "job-1",
  createdAt: T0,
  updatedAt: T0,
  stageStartedAt: T0,
  wakeAt: T0,
  attempts: 0,
  origin: origin(),
  source: source({ fileId: "F1", filename: "weekly-sync.m4a" }),
  options: {},
};
const { wakeAt: _w, ...finished } = common;
/**
 * Fresh wrappers for each job: saving a job moves its inline values out to blobs in place,
 * and a wrapper shared between tests would then point into an earlier test's store.
 */
const note = () => ({ dialog: inline(dialog), speakers, quotes: inline(quotes), speakerMap: [] });

export const queued: Job = { ...common, stage: "queued" };
export const downloading: Job = { ...common, stage: "downloading", tempPath: "/tmp/a.m4a" };
export const transcribing = (progress: { fraction: number | null; label: string } | null): Job => ({
  ...common,
  stage: "transcribing",
  tempPath: "/tmp/a.m4a",
  audio: { pollAttempt: 3, progress },
});
export const naming = (overrides: Partial<JobIn<"naming">> = {}): JobIn<"naming"> => ({
  ...common,
  stage: "naming",
  dialog: inline(dialog),
  speakers,
  quotes: inline(quotes),
  ...overrides,
});
export const writing: Job = {
  ...common,
  stage: "writing",
  note: note(),
  task: { pollAttempt: 0, progress: null },
  relinks: 0,
  delivery: 1,
};
export const delivering: Job = {
  ...common,
  stage: "delivering",
  note: note(),
  markdown: inline("# Notes"),
  docxUrl: "https://r.test/n",
  relinks: 0,
  delivery: 1,
  postedParts: 0,
};
export const done = (overrides: Partial<JobIn<"done">> = {}): JobIn<"done"> => ({
  ...finished,
  stage: "done",
  note: {
    ...note(),
    contextText: "Agenda: roadmap, budget",
    speakerMap: [{ speakerId: "speaker_1", name: "Lan Nguyen", gender: "female" }],
  },
  delivery: 1,
  markdown: inline("# Notes"),
  postedParts: 1,
  finishedAt: T0 + 760_000,
  ...overrides,
});
export const failed = (
  failure: JobIn<"failed">["failure"],
  retryable: boolean,
): JobIn<"failed"> => ({
  ...finished,
  stage: "failed",
  failedStage: "writing",
  failure,
  retryable,
  resume: writing as JobIn<"writing">,
  finishedAt: T0 + 60_000,
});
export const canceled: Job = {
  ...finished,
  stage: "canceled",
  canceledStage: "transcribing",
  canceledBy: "U2",
  finishedAt: T0 + 30_000,
};

/** Every stage once, for tests that sweep them all. */
export const everyStage: Job[] = [
  queued,
  downloading,
  transcribing({ fraction: 0.4, label: "40%" }),
  naming(),
  writing,
  delivering,
  done(),
  failed({ code: "task_failed", detail: "Audio decoding failed" }, true),
  canceled,
];

/** `n` speakers with ids speaker_1…speaker_n. */
export function manySpeakers(n: number): SpeakerSummary[] {
  return Array.from({ length: n }, (_, i) => ({
    speakerId: `speaker_${i + 1}`,
    seconds: 60,
    share: 1 / n,
  }));
}
