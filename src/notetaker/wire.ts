import { z } from "zod";
import { type Dialog, GENDERS, type SpeakerMapEntry, speakerMapEntrySchema } from "./schemas.ts";

/**
 * The app's own shapes for what the Note Service spells in snake_case, and the only translation
 * between the two: the rest of the app never writes a wire field name.
 */

const speakerNameShape = z.object({
  speakerId: z.string().min(1),
  name: z.string().trim().min(1, { error: "every speaker needs a name" }),
  gender: z.enum(GENDERS).nullish(),
});

/**
 * A name given to a detected speaker label. Job records saved by earlier versions hold the wire's
 * entry (`speaker_id`); both are read, so those records still load.
 */
export const speakerNameSchema = z.union([
  speakerNameShape,
  speakerMapEntrySchema.transform(({ speaker_id, ...rest }) => ({
    speakerId: speaker_id,
    ...rest,
  })),
]);
export type SpeakerName = z.output<typeof speakerNameShape>;

/** The names as the note operation's `speakerMap` wants them. */
export function speakerMapOf(names: readonly SpeakerName[]): SpeakerMapEntry[] {
  return names.map(({ speakerId, ...rest }) => ({ speaker_id: speakerId, ...rest }));
}

/** One segment of the dialog, read in the app's words. */
export interface Segment {
  speakerId: string;
  startSeconds: number;
  endSeconds: number;
  text: string;
}

/** The dialog itself is kept as the service sent it (it is uploaded again); this reads it. */
export function segmentsOf(dialog: Dialog): Segment[] {
  return dialog.map((entry) => ({
    speakerId: entry.speaker_id,
    startSeconds: entry.start_seconds,
    endSeconds: entry.end_seconds,
    text: entry.text,
  }));
}
