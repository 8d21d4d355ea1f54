import { stat } from "node:fs/promises";
import { z } from "zod";
import { asIsRefusal, audioFormatOf, SUPPORTED_AUDIO_FORMATS } from "../recordings/index.ts";
import { ISO_639_1_CODES } from "../text/index.ts";
import { NoteTakerInputError } from "./errors.ts";
import {
  type Dialog,
  dialogSchema,
  type SpeakerHint,
  type SpeakerMapEntry,
  type SpeakerMapInput,
  speakerHintSchema,
  speakerMapSchema,
} from "./schemas.ts";

/** Templates come from Slack's `file_input` (≤ 10 MB); a DOCX larger than that is refused. */
export const MAX_TEMPLATE_BYTES = 10 * 1024 * 1024;

const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];

/** A recording the service takes as it is, by name and size (`src/recordings` decides). */
export function checkAudio(filename: string, size: number): void {
  const refusal = asIsRefusal({ filename, size });
  if (refusal === "unsupported_format") throw unsupported(filename);
  if (refusal === "empty") throw new NoteTakerInputError(`The recording ${filename} is empty.`);
  if (refusal === "too_large") {
    throw new NoteTakerInputError(`The recording ${filename} is over 300 MB.`);
  }
}

/** {@link checkAudio} of a recording on disk; resolves to its size in bytes. */
export async function checkAudioFile(path: string, filename: string): Promise<number> {
  if (audioFormatOf(filename) === undefined) throw unsupported(filename);
  const info = await stat(path).catch((cause: unknown) => {
    throw new NoteTakerInputError(`The recording ${filename} could not be read.`, { cause });
  });
  if (!info.isFile()) throw new NoteTakerInputError(`The recording ${filename} is not a file.`);
  checkAudio(filename, info.size);
  return info.size;
}

function unsupported(filename: string): NoteTakerInputError {
  return new NoteTakerInputError(
    `${filename} is not a supported recording: use ${SUPPORTED_AUDIO_FORMATS.join(", ")}.`,
  );
}

/** Normalises an ISO 639-1 code ("EN" → "en"); rejects anything else. */
export function checkLanguageHint(code: string): string {
  const normalized = code.trim().toLowerCase();
  if (!ISO_639_1_CODES.has(normalized)) {
    throw new NoteTakerInputError(
      `"${code}" is not an ISO 639-1 language code (two letters, such as en or vi).`,
    );
  }
  return normalized;
}

/** Validates speaker hints as the service documents them (docs/note-service.md). */
export function checkSpeakerHints(speakers: readonly unknown[]): SpeakerHint[] {
  const parsed = z.array(speakerHintSchema).safeParse(speakers);
  if (!parsed.success) {
    throw new NoteTakerInputError(`Invalid speaker hints: ${firstIssue(parsed.error)}.`);
  }
  return parsed.data;
}

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

/** The first problem of a zod error as a short phrase with its location. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid input";
  const where = issue.path.length > 0 ? ` (at ${issue.path.join(".")})` : "";
  return `${issue.message}${where}`;
}
