import { z } from "zod";

/** The Note Service API (docs/note-service.md); types elsewhere are inferred from these. */

export const GENDERS = ["male", "female"] as const;

/** A known participant, given at transcription; `gender` null or absent when unknown. */
export const speakerHintSchema = z.strictObject({
  name: z.string().trim().min(1, { error: "every speaker needs a name" }),
  gender: z.enum(GENDERS, { error: 'gender must be "male", "female" or null' }).nullish(),
});
export type SpeakerHint = z.infer<typeof speakerHintSchema>;

/** A speaker map entry — maps a label of the dialog to a real name for the note. */
export const speakerMapEntrySchema = z.strictObject({
  speaker_id: z.string().min(1, { error: "speaker_id must not be empty" }),
  name: z.string().trim().min(1, { error: "every speaker needs a name" }),
  gender: z.enum(GENDERS, { error: 'gender must be "male", "female" or null' }).nullish(),
});
export type SpeakerMapEntry = z.infer<typeof speakerMapEntrySchema>;

/** The speaker map's legacy form: `{ "speaker_1": "Lan" }`. It carries no gender. */
export const legacySpeakerMapSchema = z.record(
  z.string().min(1),
  z.string().trim().min(1, { error: "every speaker needs a name" }),
);
export type LegacySpeakerMap = z.infer<typeof legacySpeakerMapSchema>;

export const speakerMapSchema = z.union([z.array(speakerMapEntrySchema), legacySpeakerMapSchema]);
export type SpeakerMapInput = z.infer<typeof speakerMapSchema>;

/** Unknown fields are kept: the dialog goes back to the note operation as the service gave it. */
export const dialogEntrySchema = z.looseObject({
  speaker_id: z.string().min(1),
  start_seconds: z.number().finite().nonnegative(),
  end_seconds: z.number().finite().nonnegative(),
  text: z.string(),
});
export type DialogEntry = z.infer<typeof dialogEntrySchema>;

export const dialogSchema = z.array(dialogEntrySchema);
export type Dialog = z.infer<typeof dialogSchema>;

/** The answer to a submission (`POST /audio2dialog`, `POST /dialog2meeting`). */
export const submitResponseSchema = z.object({
  ok: z.literal(true),
  data: z.object({ task_id: z.string().min(1) }),
});

/** The task as seen when polling (docs/note-service.md). Fields the spec does not show pass through. */
export const taskDataSchema = z.looseObject({
  task_id: z.string().optional(),
  status: z.string().min(1),
  progress: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.looseObject({ message: z.string().optional() }).nullish(),
});

export const pollResponseSchema = z.object({
  ok: z.boolean(),
  data: taskDataSchema,
});

/** An audio task's result: where the dialog file is, named in the app's words. */
export const audioResultSchema = z
  .looseObject({ dialog_url: z.url() })
  .transform((result) => ({ dialogUrl: result.dialog_url }));
export type AudioResult = z.output<typeof audioResultSchema>;

/** A note task's result: the Markdown, and where the DOCX is for 24 hours. */
export const noteResultSchema = z
  .looseObject({ markdown: z.string(), docx_url: z.url() })
  .transform((result) => ({ markdown: result.markdown, docxUrl: result.docx_url }));
export type NoteResult = z.output<typeof noteResultSchema>;
