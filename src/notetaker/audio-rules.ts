import { stat } from "node:fs/promises";
import { z } from "zod";
import { audioFormatOf, MAX_AUDIO_BYTES, SUPPORTED_AUDIO_FORMATS } from "../recordings/index.ts";
import { ISO_639_1_CODES } from "../text/index.ts";
import { NoteTakerInputError } from "./errors.ts";
import { type SpeakerHint, speakerHintSchema } from "./schemas.ts";

/** Checks a recording on disk against the API's rules; returns its size in bytes. */
export async function checkAudioFile(path: string, filename: string): Promise<number> {
  if (audioFormatOf(filename) === undefined) {
    throw new NoteTakerInputError(
      `${filename} is not a supported recording: use ${SUPPORTED_AUDIO_FORMATS.join(", ")}.`,
    );
  }
  const info = await stat(path).catch((cause: unknown) => {
    throw new NoteTakerInputError(`The recording ${filename} could not be read.`, { cause });
  });
  if (!info.isFile()) throw new NoteTakerInputError(`The recording ${filename} is not a file.`);
  checkAudioSize(filename, info.size);
  return info.size;
}

/** Checks a recording's name and size against the API's rules (a stream, not yet on disk). */
export function checkAudioMeta(filename: string, size: number): void {
  if (audioFormatOf(filename) === undefined) {
    throw new NoteTakerInputError(
      `${filename} is not a supported recording: use ${SUPPORTED_AUDIO_FORMATS.join(", ")}.`,
    );
  }
  checkAudioSize(filename, size);
}

function checkAudioSize(filename: string, size: number): void {
  if (size === 0) throw new NoteTakerInputError(`The recording ${filename} is empty.`);
  if (size > MAX_AUDIO_BYTES) {
    throw new NoteTakerInputError(`The recording ${filename} is over 300 MB.`);
  }
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

/** The first problem of a zod error as a short phrase with its location. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid input";
  const where = issue.path.length > 0 ? ` (at ${issue.path.join(".")})` : "";
  return `${issue.message}${where}`;
}
