import { audioFormatOf, MAX_AUDIO_BYTES } from "../notetaker/index.ts";
import type { SourceFile } from "./job.ts";
import { MAX_SOURCE_BYTES } from "./media-port.ts";

/**
 * Why a recording was not taken. `needs_ffmpeg` and `too_large_needs_ffmpeg`: FFmpeg could
 * prepare it, but it is not installed; `too_large_to_prepare`: over Slack's own 1 GB.
 */
export type StartRefusal =
  | "unsupported_format"
  | "too_large"
  | "empty"
  | "needs_ffmpeg"
  | "too_large_needs_ffmpeg"
  | "too_large_to_prepare";

/**
 * The rules a recording must meet before a job exists, so the user hears at once: the Note
 * Service's own (nine formats, 300 MB), or with FFmpeg to prepare what it would refuse, any
 * audio or video up to Slack's 1 GB.
 */
export function checkRecording(source: SourceFile, canPrepare: boolean): StartRefusal | undefined {
  if (audioFormatOf(source.filename) === undefined && !canPrepare) return "unsupported_format";
  if (source.size === 0) return "empty";
  if (canPrepare) return source.size > MAX_SOURCE_BYTES ? "too_large_to_prepare" : undefined;
  if (source.size > MAX_AUDIO_BYTES) return "too_large_needs_ffmpeg";
  return undefined;
}
