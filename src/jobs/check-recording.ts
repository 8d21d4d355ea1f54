import { audioFormatOf, MAX_AUDIO_BYTES } from "../notetaker/index.ts";
import type { SourceFile } from "./job.ts";

/** Why a recording was not taken. */
export type StartRefusal = "unsupported_format" | "too_large" | "empty";

/** The Note Service's rules, checked before a job exists so the user hears at once. */
export function checkRecording(source: SourceFile): StartRefusal | undefined {
  if (audioFormatOf(source.filename) === undefined) return "unsupported_format";
  if (source.size === 0) return "empty";
  if (source.size > MAX_AUDIO_BYTES) return "too_large";
  return undefined;
}
