import { z } from "zod";
import { progressTrailSchema } from "../../notetaker/progress.ts";
import { dialogSchema, speakerHintSchema } from "../../notetaker/schemas.ts";
import { speakerNameSchema } from "../../notetaker/wire.ts";
import { storedSchema } from "./stored.ts";

/** `U…`, or `W…` on Enterprise Grid: the only ids a note may mention. */
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

export const sourceFileSchema = z.object({
  fileId: z.string().min(1),
  filename: z.string().min(1),
  size: z.number().int().nonnegative(),
  downloadUrl: z.url(),
  mimetype: z.string().optional(),
});
export type SourceFile = z.infer<typeof sourceFileSchema>;

/** Why a job waits to try its step again, for its status message. */
export const WAIT_REASONS = [
  "slack_files",
  "slack_download_cut",
  "disk_full",
  "note_service",
] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

export const originSchema = z.object({
  /** Opaque install key (the Slack layer names installs); absent: single-token mode. */
  install: z.string().min(1).optional(),
  /** For Slack calls; the job's data is keyed by its tenant. */
  teamId: z.string().min(1),
  channelId: z.string().min(1),
  /** The thread's parent message: the upload, or the bot's own post. */
  threadTs: z.string().min(1),
  userId: z.string().min(1),
  locale: z.string().optional(),
  /** `workflow`: a Workflow Builder step, which the job completes (or fails) when it ends. */
  kind: z.enum(["workflow"]).optional(),
  executionId: z.string().min(1).optional(),
});
export type Origin = z.infer<typeof originSchema>;

/** What the person asked for; applies to transcription and, unless changed, to the note. */
export const jobOptionsSchema = z.object({
  contextText: z.string().optional(),
  languageHint: z.string().optional(),
  speakers: z.array(speakerHintSchema).optional(),
  templateId: z.string().optional(),
  /** Review before posting: the note goes to its starter in a DM first. */
  review: z.boolean().optional(),
});
export type JobOptions = z.infer<typeof jobOptionsSchema>;

export const speakerSummarySchema = z.object({
  speakerId: z.string(),
  seconds: z.number().nonnegative(),
  share: z.number().min(0).max(1),
});
export type SpeakerSummary = z.infer<typeof speakerSummarySchema>;

const quoteSchema = z.object({ atSeconds: z.number().nonnegative(), text: z.string() });
export type Quote = z.infer<typeof quoteSchema>;
/** Kept as a blob: only the speaker modal reads them, and every poll rewrites the record. */
export const speakerQuotesSchema = z.record(z.string(), z.array(quoteSchema));
export type SpeakerQuotes = z.infer<typeof speakerQuotesSchema>;

const progressSchema = z.object({ fraction: z.number().nullable(), label: z.string() }).nullable();

/** Kept so Regenerate and an expired DOCX link rerun only the note step. */
export const noteInputsSchema = z.object({
  dialog: storedSchema(dialogSchema),
  speakers: z.array(speakerSummarySchema),
  quotes: storedSchema(speakerQuotesSchema),
  speakerMap: z.array(speakerNameSchema),
  /** Only speakers named by picking a member may be mentioned in a note. */
  members: z.record(z.string(), z.string().regex(SLACK_USER_ID)).optional(),
  contextText: z.string().optional(),
  templateId: z.string().optional(),
});
export type NoteInputs = z.infer<typeof noteInputsSchema>;

/** `submittedAt` is saved before the submission: the API has no idempotency key. */
export const pollingSchema = z.object({
  taskId: z.string().optional(),
  submittedAt: z.number().optional(),
  pollAttempt: z.number().int().nonnegative(),
  progress: progressSchema,
  trail: progressTrailSchema.optional(),
});

/** `refused`: any other canvas refusal that trying again cannot change. */
export const CANVAS_REFUSALS = [
  "not_allowed",
  "free_plan",
  "missing_scope",
  "too_large",
  "refused",
] as const;
export type CanvasRefusal = (typeof CANVAS_REFUSALS)[number];

export const noteToDeliverShape = {
  note: noteInputsSchema,
  markdown: storedSchema(z.string()),
  docxUrl: z.string(),
  relinks: z.number().int().nonnegative(),
  /** Tells this delivery's posts from those of an earlier note (Regenerate). */
  delivery: z.number().int().positive(),
  docxPath: z.string().optional(),
};

export const reviewPlaceSchema = z.object({
  channelId: z.string().min(1),
  ts: z.string().min(1),
});
export type ReviewPlace = z.infer<typeof reviewPlaceSchema>;

/** Each post's intent is saved before it and its result after: after a crash the thread is read. */
export const postingShape = {
  postedParts: z.number().int().nonnegative(),
  postingPart: z.number().int().nonnegative().optional(),
  uploadingDocx: z.boolean().optional(),
  docxFileId: z.string().optional(),
  uploadingTranscript: z.boolean().optional(),
};
