import { z } from "zod";
import type { Dialog, Progress, ProgressTrail } from "../../notetaker/index.ts";
import { speakerNameSchema } from "../../notetaker/wire.ts";
import { failureSchema } from "./job.ts";
import type { CanvasRefusal, SpeakerQuotes, SpeakerSummary, WaitReason } from "./job-parts.ts";

/** What names and a Regenerate may change of the note; `members`: speaker id → Slack user id. */
const noteChanges = {
  members: z.record(z.string(), z.string()).optional(),
  contextText: z.string().optional(),
  templateId: z.string().optional(),
};

/**
 * What is asked of a job from outside its steps, kept in the store until applied: a person's
 * command, or a stop because its install lost its tokens.
 */
export const jobRequestSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("names_given"),
    speakerMap: z.array(speakerNameSchema),
    ...noteChanges,
  }),
  z.object({ type: z.literal("naming_skipped") }),
  z.object({ type: z.literal("retried") }),
  z.object({
    type: z.literal("regenerate"),
    speakerMap: z.array(speakerNameSchema).optional(),
    ...noteChanges,
  }),
  z.object({ type: z.literal("review_posted"), by: z.string() }),
  z.object({ type: z.literal("review_discarded"), by: z.string() }),
  z.object({ type: z.literal("canceled"), by: z.string() }),
  z.object({ type: z.literal("failed"), failure: failureSchema, retryable: z.boolean() }),
]);
export type JobRequest = z.infer<typeof jobRequestSchema>;

/** Everything that can happen to a job; `transition` applies one, purely. */
export type JobEvent =
  | JobRequest
  | { type: "status_posting"; at: number }
  | { type: "status_posted"; ts: string }
  | { type: "admission_waiting"; ahead: number; wakeAt: number }
  | { type: "download_started"; tempPath: string }
  /** `relay`: uploaded to the Note Service while it downloads. */
  | { type: "download_attempt"; tempPath: string; relay: boolean }
  | { type: "relayed"; taskId: string; wakeAt: number }
  | { type: "downloaded"; prepare?: boolean }
  | { type: "prepared"; tempPath: string; audioName: string }
  | { type: "source_missing"; tempPath: string }
  | { type: "audio_submitting" }
  | { type: "audio_submitted"; taskId: string; wakeAt: number }
  | { type: "audio_polled"; progress: Progress | null; wakeAt: number; trail?: ProgressTrail }
  | { type: "transcribed"; dialog: Dialog; speakers: SpeakerSummary[]; quotes: SpeakerQuotes }
  | { type: "awaiting_names" }
  | { type: "note_submitting" }
  | { type: "note_submitted"; taskId: string; wakeAt: number }
  | { type: "note_polled"; wakeAt: number; trail?: ProgressTrail }
  | {
      type: "note_written";
      markdown: string;
      docxUrl: string;
      /** Review before posting: the note waits for its starter until then (ms). */
      reviewUntil?: number;
    }
  | { type: "docx_downloaded"; docxPath: string }
  | { type: "docx_link_expired" }
  | { type: "part_posting"; index: number }
  | { type: "part_posted"; index: number }
  | { type: "docx_uploading" }
  | { type: "docx_uploaded"; fileId: string }
  | { type: "canvas_creating"; at: number }
  | { type: "canvas_created"; canvasId: string }
  | { type: "canvas_updated" }
  | { type: "canvas_shared"; url: string }
  | { type: "canvas_gone" }
  | { type: "canvas_refused"; reason: CanvasRefusal }
  | { type: "transcript_uploading" }
  | { type: "transcript_uploaded"; fileIds: string[] }
  | {
      type: "delivery_reconciled";
      postedParts: number;
      docxFileId: string | undefined;
      transcriptFileIds?: string[];
    }
  | { type: "delivered" }
  | { type: "review_opening"; at: number }
  | { type: "review_opened"; channelId: string; ts: string }
  | { type: "review_ready"; wakeAt: number }
  | { type: "review_reminding"; at: number }
  | { type: "review_reminded"; wakeAt: number }
  | { type: "review_expired" }
  | { type: "retry_later"; wakeAt: number; waiting?: WaitReason };

export type JobEventType = JobEvent["type"];

export type EventOf<T extends JobEventType> = Extract<JobEvent, { type: T }>;
