import { z } from "zod";
import { progressTrailSchema } from "../../notetaker/progress-trail.ts";
import { dialogSchema, speakerHintSchema, speakerMapEntrySchema } from "../../notetaker/schemas.ts";
import { storedSchema } from "./stored.ts";

/** The parts a job record is made of: who and where, what was asked, what was heard. */

/** A Slack user id (`U…`, or `W…` on Enterprise Grid): the only ids a note may mention. */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

export const ACTIVE_STAGES = [
  "queued",
  "downloading",
  "preparing",
  "transcribing",
  "naming",
  "writing",
  "reviewing",
  "delivering",
] as const;
export const FINAL_STAGES = ["done", "failed", "canceled", "discarded"] as const;
export type ActiveStage = (typeof ACTIVE_STAGES)[number];
export type Stage = ActiveStage | (typeof FINAL_STAGES)[number];

/** Where the recording comes from: a Slack file, as far as the job layer needs to know it. */
export const sourceFileSchema = z.object({
  fileId: z.string().min(1),
  filename: z.string().min(1),
  size: z.number().int().nonnegative(),
  downloadUrl: z.url(),
  mimetype: z.string().optional(),
});
export type SourceFile = z.infer<typeof sourceFileSchema>;

/**
 * Why a job waits to try its step again after a failure that clears up by itself, for its
 * status message: Slack's file server not answering, a download cut off before its end, the
 * disk of the temp folder full, the Note Service not answering.
 */
export const WAIT_REASONS = [
  "slack_files",
  "slack_download_cut",
  "disk_full",
  "note_service",
] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/** The thread the job answers in, and who started it. */
export const originSchema = z.object({
  /**
   * The installation of the app the job was asked for in (an opaque key: the Slack layer
   * names installs); its token makes the job's Slack calls. Absent: the single-token mode's.
   */
  install: z.string().min(1).optional(),
  /** The workspace of the thread, for Slack calls; the job's data is keyed by its tenant. */
  teamId: z.string().min(1),
  channelId: z.string().min(1),
  /** The ts of the thread's parent message (the upload, or the bot's own post). */
  threadTs: z.string().min(1),
  userId: z.string().min(1),
  /** The user's Slack locale, for the language of the bot's messages. */
  locale: z.string().optional(),
  /**
   * How the job was asked for when that matters after its start: `workflow`, a Workflow
   * Builder step, which the job completes (or fails) when it ends. Absent: a person in Slack.
   */
  kind: z.enum(["workflow"]).optional(),
  /** A Workflow Builder step's run (`function_execution_id`), which the job completes. */
  executionId: z.string().min(1).optional(),
});
export type Origin = z.infer<typeof originSchema>;

/** What the person asked for; applies to transcription and, unless changed, to the note. */
export const jobOptionsSchema = z.object({
  contextText: z.string().optional(),
  languageHint: z.string().optional(),
  speakers: z.array(speakerHintSchema).optional(),
  /** Key of a DOCX template in the store's "templates" namespace. */
  templateId: z.string().optional(),
  /**
   * Review before posting: each note goes first to the person who started the job, in a
   * direct message, and reaches the thread only when they post it. Absent: off.
   */
  review: z.boolean().optional(),
});
export type JobOptions = z.infer<typeof jobOptionsSchema>;

/** How much one speaker talked (kept in the record: the status message lists it). */
export const speakerSummarySchema = z.object({
  speakerId: z.string(),
  seconds: z.number().nonnegative(),
  share: z.number().min(0).max(1),
});
export type SpeakerSummary = z.infer<typeof speakerSummarySchema>;

const quoteSchema = z.object({ atSeconds: z.number().nonnegative(), text: z.string() });
export type Quote = z.infer<typeof quoteSchema>;
/**
 * Short quotes to recognise each speaker by, by speaker id: only the speaker modal shows
 * them, so they are kept as a blob, out of the record every poll rewrites.
 */
export const speakerQuotesSchema = z.record(z.string(), z.array(quoteSchema));
export type SpeakerQuotes = z.infer<typeof speakerQuotesSchema>;

const progressSchema = z.object({ fraction: z.number().nullable(), label: z.string() }).nullable();

/** The note's inputs: kept so Regenerate and an expired DOCX link rerun only the note step. */
export const noteInputsSchema = z.object({
  /** The transcript, kept as a blob: read when the note is written, not on every poll. */
  dialog: storedSchema(dialogSchema),
  speakers: z.array(speakerSummarySchema),
  quotes: storedSchema(speakerQuotesSchema),
  speakerMap: z.array(speakerMapEntrySchema),
  /**
   * The speakers named by picking a Slack member (speaker id → user id), not by typing: the
   * only people a note may mention (channel setting "people named").
   */
  members: z.record(z.string(), z.string().regex(SLACK_USER_ID)).optional(),
  contextText: z.string().optional(),
  templateId: z.string().optional(),
});
export type NoteInputs = z.infer<typeof noteInputsSchema>;

/** A remote task being polled. `submittedAt` is stored before the submission (docs/faults.md, "The one window left"). */
export const pollingSchema = z.object({
  taskId: z.string().optional(),
  submittedAt: z.number().optional(),
  pollAttempt: z.number().int().nonnegative(),
  progress: progressSchema,
  /** What the polls saw of the task's progress, for the next wait (absent in older records). */
  trail: progressTrailSchema.optional(),
});

/**
 * Why there is no canvas: turned off, the plan, a missing scope, a note too long for one, or
 * any other answer of Slack's to a canvas call that trying again cannot change (`refused`).
 */
export const CANVAS_REFUSALS = [
  "not_allowed",
  "free_plan",
  "missing_scope",
  "too_large",
  "refused",
] as const;
export type CanvasRefusal = (typeof CANVAS_REFUSALS)[number];

/** A note written and on its way: what delivering, and reviewing before it, hold. */
export const noteToDeliverShape = {
  note: noteInputsSchema,
  markdown: storedSchema(z.string()),
  docxUrl: z.string(),
  relinks: z.number().int().nonnegative(),
  /** 1 for the first note, 2 after a Regenerate…: tells this delivery's posts from earlier ones. */
  delivery: z.number().int().positive(),
  /** The DOCX, fetched to this disk. */
  docxPath: z.string().optional(),
};

/** Where a review is: the bot's direct message with the starter, and the review's first message. */
export const reviewPlaceSchema = z.object({
  channelId: z.string().min(1),
  ts: z.string().min(1),
});
export type ReviewPlace = z.infer<typeof reviewPlaceSchema>;

/**
 * What of a note is in its review's thread, in the direct message: each post's intent is
 * saved before it and its result after, as in delivery, so a crash posts nothing twice.
 */
export const reviewDeliveryShape = {
  postedParts: z.number().int().nonnegative(),
  postingPart: z.number().int().nonnegative().optional(),
  uploadingDocx: z.boolean().optional(),
  docxFileId: z.string().optional(),
  uploadingTranscript: z.boolean().optional(),
  transcriptFileIds: z.array(z.string()).optional(),
};
