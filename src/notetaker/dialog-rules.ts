import { firstIssue } from "./audio-rules.ts";
import { NoteTakerInputError } from "./errors.ts";
import {
  type Dialog,
  dialogSchema,
  type SpeakerMapEntry,
  type SpeakerMapInput,
  speakerMapSchema,
} from "./schemas.ts";

/** Templates come from Slack's `file_input` (≤ 10 MB); a DOCX larger than that is refused. */
export const MAX_TEMPLATE_BYTES = 10 * 1024 * 1024;

const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];

export function checkDialog(dialog: unknown): Dialog {
  const parsed = dialogSchema.safeParse(dialog);
  if (!parsed.success)
    throw new NoteTakerInputError(`Invalid dialog: ${firstIssue(parsed.error)}.`);
  return parsed.data;
}

/** The speaker map in array form (the legacy object converted); its ids must be in the dialog. */
export function toSpeakerMapArray(input: SpeakerMapInput, dialog: Dialog): SpeakerMapEntry[] {
  const parsed = speakerMapSchema.safeParse(input);
  if (!parsed.success) {
    throw new NoteTakerInputError(`Invalid speaker map: ${firstIssue(parsed.error)}.`);
  }
  const entries = Array.isArray(parsed.data)
    ? parsed.data
    : Object.entries(parsed.data).map(([speaker_id, name]) => ({ speaker_id, name }));
  const known = new Set(dialog.map((entry) => entry.speaker_id));
  const unknown = entries.find((entry) => !known.has(entry.speaker_id));
  if (unknown !== undefined) {
    throw new NoteTakerInputError(
      `The speaker map names ${unknown.speaker_id}, who is not in the dialog.`,
    );
  }
  return entries.map((entry) => ({ ...entry, name: entry.name.trim() }));
}

/** A template must be a non-empty zip file (a DOCX) of at most 10 MB. */
export function checkTemplate(template: { filename: string; data: Uint8Array }) {
  const { data, filename } = template;
  if (data.byteLength === 0) throw new NoteTakerInputError(`The template ${filename} is empty.`);
  if (data.byteLength > MAX_TEMPLATE_BYTES) {
    throw new NoteTakerInputError(`The template ${filename} is over 10 MB.`);
  }
  if (!ZIP_SIGNATURE.every((byte, i) => data[i] === byte)) {
    throw new NoteTakerInputError(`The template ${filename} is not a Word document (.docx).`);
  }
  return template;
}
