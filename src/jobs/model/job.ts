import { z } from "zod";
import { dialogSchema } from "../../notetaker/schemas.ts";
import { CONTENT_REFUSALS } from "../../recordings/index.ts";
import {
  ACTIVE_STAGES,
  CANVAS_REFUSALS,
  jobOptionsSchema,
  noteInputsSchema,
  noteToDeliverShape,
  originSchema,
  pollingSchema,
  reviewDeliveryShape,
  reviewPlaceSchema,
  type Stage,
  sourceFileSchema,
  speakerQuotesSchema,
  speakerSummarySchema,
  WAIT_REASONS,
} from "./job-parts.ts";
import { migrateStoredJob } from "./migrate-job.ts";
import { storedSchema } from "./stored.ts";

export * from "./job-parts.ts";

/**
 * A job is one recording on its way to a note (docs/architecture.md). The record is a union tagged
 * by `stage`; each stage holds what is needed to resume it after a restart. Records come
 * back from the store through `jobSchema`, so a damaged or outdated record is caught at the
 * boundary instead of deep in the runner.
 */

/*
 * Every time of a record (ms since the epoch) is read from the store's clock (`Store.now`):
 * the wall clock as the store opened, advanced monotonically, Redis's own on Redis. Due
 * times and stage limits then survive a wall-clock jump, and all replicas agree on them;
 * dates shown to people are those of that clock (the same as the wall clock but for a jump
 * since the store opened).
 */
const commonSchema = z.object({
  id: z.string().min(1),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** When the current stage began: stage time limits count from here. */
  stageStartedAt: z.number(),
  /** When the runner should next look at the job; absent while it waits for a person. */
  wakeAt: z.number().optional(),
  origin: originSchema,
  source: sourceFileSchema,
  options: jobOptionsSchema,
  /** ts of the status message in the thread, once posted. */
  statusTs: z.string().optional(),
  /**
   * Set before the first status message is posted, until its ts is saved: a run that finds
   * it set without `statusTs` reads the thread for the message an earlier run may have
   * posted (its answer lost, or the process gone) before posting one.
   */
  statusPostingAt: z.number().optional(),
  /** Why the job waits to try its step again, while it does (the status message says it). */
  waiting: z.enum(WAIT_REASONS).optional(),
  /** How many times in a row a step failed for a transient reason. */
  attempts: z.number().int().nonnegative(),
  /** When a person last asked to regenerate the note (for the cooldown). */
  regeneratedAt: z.number().optional(),
  /**
   * The speaker-named transcript in the thread: its files and the delivery they belong to;
   * kept across Regenerates, whose new transcript replaces these files.
   */
  transcript: z
    .object({ delivery: z.number().int().positive(), fileIds: z.array(z.string()) })
    .optional(),
  /**
   * The note's canvas: its id, the delivery whose note it holds, and its link once the
   * channel may read it. Kept across Regenerates, which edit it instead of making another.
   */
  canvas: z
    .object({
      id: z.string().min(1),
      delivery: z.number().int().positive(),
      url: z.string().optional(),
    })
    .optional(),
  /** Why the workspace refused the canvas (the status message says it once). */
  canvasRefused: z.enum(CANVAS_REFUSALS).optional(),
  /**
   * Review before posting: the latest review's first message, in the bot's direct message
   * with the person who started the job. Its buttons act on the job only while it waits
   * for that review; a newer review (after Change names) replaces it.
   */
  review: reviewPlaceSchema.optional(),
});

const queuedSchema = commonSchema.extend({
  stage: z.literal("queued"),
  /** Waiting for a fair-use slot: how many recordings must go first. */
  ahead: z.number().int().positive().optional(),
});
const downloadingSchema = commonSchema.extend({
  stage: z.literal("downloading"),
  tempPath: z.string(),
  /**
   * Set before the upload that runs while the download does (a relay): a crash from here on
   * may have left a remote task, as with `audio.submittedAt`.
   */
  relayStartedAt: z.number().optional(),
});
/** A recording the Note Service would refuse as it is, its audio being extracted by FFmpeg. */
const preparingSchema = commonSchema.extend({
  stage: z.literal("preparing"),
  /** The download, kept until the prepared audio is complete: a restart starts over from it. */
  tempPath: z.string(),
  /** How far FFmpeg is (0..1), for the status message; saved only with other changes. */
  fraction: z.number().min(0).max(1).optional(),
});
const transcribingSchema = commonSchema.extend({
  stage: z.literal("transcribing"),
  tempPath: z.string().optional(),
  /** The name the Note Service gets when it is not the source's (prepared audio: `.ogg`). */
  audioName: z.string().optional(),
  audio: pollingSchema,
});
const namingSchema = commonSchema.extend({
  stage: z.literal("naming"),
  dialog: storedSchema(dialogSchema),
  speakers: z.array(speakerSummarySchema),
  quotes: storedSchema(speakerQuotesSchema),
});
const writingSchema = commonSchema.extend({
  stage: z.literal("writing"),
  note: noteInputsSchema,
  task: pollingSchema,
  /** How many times the note was written again because its DOCX link had expired. */
  relinks: z.number().int().nonnegative(),
  /** 1 for the first note, 2 after a Regenerate…: tells this delivery's posts from earlier ones. */
  delivery: z.number().int().positive(),
});
const deliveringSchema = commonSchema.extend({
  stage: z.literal("delivering"),
  ...noteToDeliverShape,
  /** Parts of the note known to be in the thread. */
  postedParts: z.number().int().nonnegative(),
  /** Set before a post whose outcome is not yet recorded: after a crash, check the thread. */
  postingPart: z.number().int().nonnegative().optional(),
  uploadingDocx: z.boolean().optional(),
  docxFileId: z.string().optional(),
  /** Set before the transcript's upload whose outcome is not yet recorded. */
  uploadingTranscript: z.boolean().optional(),
  /** When `canvases.create` was called and its canvas id not yet recorded (after a crash: look for it). */
  creatingCanvasAt: z.number().optional(),
});
/** The note is written and waits, in a direct message, for its starter to post or discard it. */
const reviewingSchema = commonSchema.extend({
  stage: z.literal("reviewing"),
  ...noteToDeliverShape,
  /** When the note stops waiting: the job's retention after it came for review. */
  expiresAt: z.number(),
  /** Set before the review's first message is posted, until `review` holds it. */
  openingAt: z.number().optional(),
  /** This review's first message is posted (`review`): the rest goes in its thread. */
  opened: z.boolean().optional(),
  ...reviewDeliveryShape,
  /** Everything is in the direct message and its buttons shown: waiting for the person. */
  ready: z.boolean().optional(),
  /** Set before the reminder that the note expires in a day; then `reminded`. */
  remindingAt: z.number().optional(),
  reminded: z.boolean().optional(),
});
const doneSchema = commonSchema.extend({
  stage: z.literal("done"),
  note: noteInputsSchema,
  markdown: storedSchema(z.string()),
  /** How many note parts were posted (the last delivery's). */
  postedParts: z.number().int().nonnegative(),
  delivery: z.number().int().positive(),
  docxFileId: z.string().optional(),
  finishedAt: z.number(),
});

const activeJobSchema = z.discriminatedUnion("stage", [
  queuedSchema,
  downloadingSchema,
  preparingSchema,
  transcribingSchema,
  namingSchema,
  writingSchema,
  reviewingSchema,
  deliveringSchema,
]);

/**
 * Why a job failed, as a code the Slack layer turns into one plain sentence in the user's
 * language; `detail` carries the service's own message where there is one.
 */
export const FAILURE_CODES = [
  "task_failed",
  "auth",
  // The Note Service address (NOTE_TAKER_BASE_URL) has no such endpoint.
  "address",
  "refused",
  "task_lost",
  "timeout",
  "unavailable",
  "bad_response",
  "invalid_input",
  "download_failed",
  // The recording, as Slack served it (or would not): src/slack/gateway/download-slack-file.ts.
  "download_refused",
  "download_unavailable",
  "download_cut",
  "disk_full",
  // The file itself, refused for what its bytes are (src/recordings).
  ...CONTENT_REFUSALS,
  "slack_failed",
  "slack_unavailable",
  // The job's installation can no longer act in Slack (its tokens revoked, or uninstalled).
  "install_unavailable",
  "no_speech",
  "docx_expired",
  "link_refused",
  "dialog_too_large",
  "docx_too_large",
  // Review before posting: Slack would not open the direct message (an old install's scopes).
  "review_unreachable",
  "internal",
] as const;
export const failureSchema = z.object({
  code: z.enum(FAILURE_CODES),
  detail: z.string().optional(),
});
export type Failure = z.infer<typeof failureSchema>;

const failedSchema = commonSchema.extend({
  stage: z.literal("failed"),
  failedStage: z.enum(ACTIVE_STAGES),
  failure: failureSchema,
  /** Whether Retry can help. */
  retryable: z.boolean(),
  /** The job as it was when it failed: Retry resumes from here. */
  resume: activeJobSchema,
  finishedAt: z.number(),
});
const canceledSchema = commonSchema.extend({
  stage: z.literal("canceled"),
  canceledStage: z.enum(ACTIVE_STAGES),
  canceledBy: z.string(),
  finishedAt: z.number(),
});

/** A note its reviewer discarded, or that nobody posted before it expired: nothing in the thread. */
const discardedSchema = commonSchema.extend({
  stage: z.literal("discarded"),
  /** Who discarded it; absent when it expired unreviewed. */
  discardedBy: z.string().optional(),
  finishedAt: z.number(),
});

export const jobSchema = z.discriminatedUnion("stage", [
  ...activeJobSchema.options,
  doneSchema,
  failedSchema,
  canceledSchema,
  discardedSchema,
]);

/**
 * A record as read from the store, brought up to date first: records written by an earlier
 * version keep working (`migrate-job.ts`).
 */
export const storedJobSchema = z.preprocess(migrateStoredJob, jobSchema);

export type Job = z.infer<typeof jobSchema>;
export type ActiveJob = z.infer<typeof activeJobSchema>;
export type JobIn<S extends Stage> = Extract<Job, { stage: S }>;

/** Whether the job still has work ahead (including waiting for names). */
export function isActive(job: Job): job is ActiveJob {
  return (ACTIVE_STAGES as readonly string[]).includes(job.stage);
}
