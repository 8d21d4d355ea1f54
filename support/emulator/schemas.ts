import { z } from "zod";

/** Spec 2.5 and 2.6: gender is `male`, `female`, null, or left out. */
const gender = z.enum(["male", "female"]).nullable().optional();

/** Spec 2.5: an element of `speakers` (audio-to-dialog). */
export const speakerHintSchema = z.object({ name: z.string().min(1), gender });
export const speakerHintsSchema = z.array(speakerHintSchema);

/** Spec 2.4: an element of the dialog array. */
export const dialogEntrySchema = z.object({
  speaker_id: z.string(),
  start_seconds: z.number(),
  end_seconds: z.number(),
  text: z.string(),
});
export const dialogSchema = z.array(dialogEntrySchema);

/** Spec 2.6: an element of `speakerMap` (dialog-to-meeting). */
export const speakerMapEntrySchema = z.object({
  speaker_id: z.string().min(1),
  name: z.string().min(1),
  gender,
});

/** Spec 2.6: the array form, or the legacy `{speaker_1: "Name"}` object form. */
export const speakerMapSchema = z.union([
  z.array(speakerMapEntrySchema),
  z.record(z.string(), z.string()),
]);

/** ISO 639-1: two lowercase letters. */
export const languageHintSchema = z.string().regex(/^[a-z]{2}$/);

/** Spec 4.1: the supported audio formats, by file name extension. */
export const AUDIO_EXTENSIONS = [
  "mp3",
  "mp4",
  "wav",
  "m4a",
  "ogg",
  "flac",
  "aac",
  "opus",
  "webm",
] as const;

export type SpeakerHint = z.infer<typeof speakerHintSchema>;
export type DialogEntry = z.infer<typeof dialogEntrySchema>;
export type SpeakerMap = z.infer<typeof speakerMapSchema>;
