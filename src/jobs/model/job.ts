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
  postingShape,
  reviewPlaceSchema,
  type Stage,
  sourceFileSchema,
  speakerQuotesSchema,
  speakerSummarySchema,
  WAIT_REASONS,
} from "./job-parts.ts";
import { migrateStoredJob } from "./migrate-job.ts";
import { storedSchema } from "./stored.ts";

/**
 * A union tagged by `stage`, each holding what a restart needs to resume it. Every time is the
 * store's clock (`Store.now`), so times survive a wall-clock jump and replicas agree on them.
 */
export const commonSchema = z.object({
  id: z.string().min(1),
  createdAt: z.number(),
  updatedAt: z.number(),
  stageStartedAt: z.number(),
  /** Absent while the job waits for a person. */
  wakeAt: z.number().optional(),
  origin: originSchema,
  source: sourceFileSchema,
  options: jobOptionsSchema,
  statusTs: z.string().optional(),
  /** Set before the first status post: a later run reads the thread before posting another. */
  statusPostingAt: z.number().optional(),
  waiting: z.enum(WAIT_REASONS).optional(),
  /** Transient failures in a row. */
  attempts: z.number().int().nonnegative(),
  /** For the Regenerate cooldown. */
  regeneratedAt: z.number().optional(),
  /** Kept across Regenerates, whose new transcript replaces these files. */
  transcript: z
    .object({ delivery: z.number().int().positive(), fileIds: z.array(z.string()) })
    .optional(),
  /** Kept across Regenerates, which edit the canvas instead of making another. */
  canvas: z
    .object({
      id: z.string().min(1),
      delivery: z.number().int().positive(),
      url: z.string().optional(),
    })
    .optional(),
  canvasRefused: z.enum(CANVAS_REFUSALS).optional(),
  /** The latest review's first message (in the DM); a newer review replaces it. */
  review: reviewPlaceSchema.optional(),
});

const queuedSchema = commonSchema.extend({
  stage: z.literal("queued"),
  /** How many recordings must go first. */
  ahead: z.number().int().positive().optional(),
});
const downloadingSchema = commonSchema.extend({
  stage: z.literal("downloading"),
  tempPath: z.string(),
  /** Set before the relay's upload: a crash from here on may have left a remote task. */
  relayStartedAt: z.number().optional(),
});
const preparingSchema = commonSchema.extend({
  stage: z.literal("preparing"),
  /** Kept until the prepared audio is complete: a restart starts over from it. */
  tempPath: z.string(),
  /** Drawn in the status message; saved only with other changes. */
  fraction: z.number().min(0).max(1).optional(),
});
const transcribingSchema = commonSchema.extend({
  stage: z.literal("transcribing"),
  tempPath: z.string().optional(),
  /** `.ogg` for prepared audio. */
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
  /** Rewrites after an expired DOCX link. */
  relinks: z.number().int().nonnegative(),
  delivery: z.number().int().positive(),
});
const deliveringSchema = commonSchema.extend({
  stage: z.literal("delivering"),
  ...noteToDeliverShape,
  ...postingShape,
  /** Set before `canvases.create`: after a crash, the canvas is looked for. */
  creatingCanvasAt: z.number().optional(),
});
const reviewingSchema = commonSchema.extend({
  stage: z.literal("reviewing"),
  ...noteToDeliverShape,
  expiresAt: z.number(),
  /** Set before the review's first message is posted, until `review` holds it. */
  openingAt: z.number().optional(),
  opened: z.boolean().optional(),
  ...postingShape,
  transcriptFileIds: z.array(z.string()).optional(),
  /** Everything is in the DM: waiting for the person. */
  ready: z.boolean().optional(),
  /** Set before the reminder that the note expires in a day; then `reminded`. */
  remindingAt: z.number().optional(),
  reminded: z.boolean().optional(),
});
const doneSchema = commonSchema.extend({
  stage: z.literal("done"),
  note: noteInputsSchema,
  markdown: storedSchema(z.string()),
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

/** A code the Slack layer turns into one sentence; `detail` is the service's message, if any. */
export const FAILURE_CODES = [
  "task_failed",
  "auth",
  "address",
  "refused",
  "task_lost",
  "timeout",
  "unavailable",
  "bad_response",
  "invalid_input",
  "download_failed",
  "download_refused",
  "download_unavailable",
  "download_cut",
  "disk_full",
  ...CONTENT_REFUSALS,
  "slack_failed",
  "slack_unavailable",
  "install_unavailable",
  "no_speech",
  "docx_expired",
  "link_refused",
  "dialog_too_large",
  "docx_too_large",
  // Slack would not open the review's DM (an old install's scopes).
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
  retryable: z.boolean(),
  /** Retry resumes from here. */
  resume: activeJobSchema,
  finishedAt: z.number(),
});
const canceledSchema = commonSchema.extend({
  stage: z.literal("canceled"),
  canceledStage: z.enum(ACTIVE_STAGES),
  canceledBy: z.string(),
  finishedAt: z.number(),
});

const discardedSchema = commonSchema.extend({
  stage: z.literal("discarded"),
  /** Absent when it expired unreviewed. */
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

/** Records written by an earlier version are migrated first (`migrate-job.ts`). */
export const storedJobSchema = z.preprocess(migrateStoredJob, jobSchema);

export type Job = z.infer<typeof jobSchema>;
export type ActiveJob = z.infer<typeof activeJobSchema>;
export type JobIn<S extends Stage> = Extract<Job, { stage: S }>;

export function isActive(job: Job): job is ActiveJob {
  return (ACTIVE_STAGES as readonly string[]).includes(job.stage);
}
