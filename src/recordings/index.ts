import { audioFormatOf, declaredAudioFormat, describesMedia } from "./formats.ts";
import type { Sniffed } from "./sniff.ts";

export { MEDIA_DEMUXERS } from "./containers.ts";
export {
  audioFormatOf,
  declaredAudioFormat,
  describesMedia,
  SUPPORTED_AUDIO_FORMATS,
} from "./formats.ts";
export {
  demuxerOf,
  type ReadAt,
  SNIFF_BYTES,
  type Sniffed,
  sniffContainer,
  sniffRecording,
} from "./sniff.ts";

/* Which recordings the bot takes: by what Slack says of a file, then by its bytes and header. */

/** The Note Service takes 300 MB, read as binary megabytes: the larger reading. */
export const MAX_AUDIO_BYTES = 300 * 1024 * 1024;

/** Slack's own file limit (1 GB): nothing larger can be shared, so nothing larger is taken. */
export const MAX_SOURCE_BYTES = 1024 * 1024 * 1024;

/** The longest recording taken (MAX_RECORDING_HOURS): a working day of meetings. */
export const DEFAULT_MAX_RECORDING_HOURS = 8;

/** 8K UHD: no meeting's frame is larger; a huge frame in a tiny file is a memory bomb. */
export const MAX_FRAME_PIXELS = 7680 * 4320;

/** Why a recording was not taken before a job exists, from what Slack says of the file. */
export type StartRefusal =
  | "unsupported_format"
  | "too_large"
  | "empty"
  | "needs_ffmpeg"
  | "too_large_needs_ffmpeg"
  | "too_large_to_prepare";

/**
 * Why a recording was refused once its bytes were seen. Each is what the file is: the same
 * bytes would be refused again, so none offers Retry.
 */
export const CONTENT_REFUSALS = [
  "not_audio",
  "unsupported_container",
  "no_sound",
  "too_long",
  "frame_too_large",
  "prepare_failed",
  "prepare_too_slow",
  "prepared_too_large",
] as const;

/** Why the Note Service would refuse a file as it is, by its name and size; undefined: it takes it. */
export function asIsRefusal(source: {
  filename: string;
  size: number;
}): "unsupported_format" | "empty" | "too_large" | undefined {
  if (audioFormatOf(source.filename) === undefined) return "unsupported_format";
  if (source.size === 0) return "empty";
  return source.size > MAX_AUDIO_BYTES ? "too_large" : undefined;
}

/**
 * How a file is taken by what Slack says of it: in its audio format, prepared by FFmpeg first,
 * or refused (audio or video needs FFmpeg; anything else is not a recording).
 */
export function intakeOf(
  described: Parameters<typeof declaredAudioFormat>[0] & Parameters<typeof describesMedia>[0],
  canPrepare: boolean,
): { format: string } | { prepare: true } | { refusal: "needs_ffmpeg" | "unsupported_format" } {
  const format = declaredAudioFormat(described);
  if (format !== undefined) return { format };
  if (!describesMedia(described)) return { refusal: "unsupported_format" };
  return canPrepare ? { prepare: true } : { refusal: "needs_ffmpeg" };
}

/** What the name and size Slack gives must meet before a job exists (see {@link StartRefusal}). */
export function checkRecording(
  source: { filename: string; size: number },
  canPrepare: boolean,
): StartRefusal | undefined {
  if (!canPrepare) {
    const refusal = asIsRefusal(source);
    return refusal === "too_large" ? "too_large_needs_ffmpeg" : refusal;
  }
  if (source.size === 0) return "empty";
  return source.size > MAX_SOURCE_BYTES ? "too_large_to_prepare" : undefined;
}

/** A download goes to the Note Service as it is, is prepared by FFmpeg first, or is refused. */
export type DownloadVerdict =
  | { verdict: "as_is" | "prepare" }
  | { verdict: "refused"; refusal: "not_audio" }
  | { verdict: "refused"; refusal: "unsupported_container"; format: string };

export function verdictOf(
  sniffed: Sniffed,
  facts: { filename: string; size: number; canPrepare: boolean },
): DownloadVerdict {
  if (sniffed.kind === "not_media") return { verdict: "refused", refusal: "not_audio" };
  if (sniffed.kind === "audio" && asIsRefusal(facts) === undefined) return { verdict: "as_is" };
  if (facts.canPrepare) return { verdict: "prepare" };
  if (sniffed.kind === "other_media") {
    return { verdict: "refused", refusal: "unsupported_container", format: sniffed.format };
  }
  // Without FFmpeg nothing else gets this far: the start refuses it and the download stops at 300 MB.
  return { verdict: "as_is" };
}

/** What ffprobe read of a recording's header (`src/media` reads it). */
export interface ProbedRecording {
  /** Seconds, as the container declares them; undefined when it does not say. */
  durationSec: number | undefined;
  hasAudio: boolean;
  /** The largest frame any video stream declares (width × height), 0 without video. */
  largestFramePixels: number;
  /** A decoder refused a frame for its size while probing (FFmpeg's `max_pixels`). */
  oversizedFrame: boolean;
}

/** Refused before any decoding: no sound, longer than `maxHours`, or frames no meeting has. */
export function checkProbed(
  probed: ProbedRecording,
  maxHours: number,
): "no_sound" | "too_long" | "frame_too_large" | undefined {
  if (probed.oversizedFrame || probed.largestFramePixels > MAX_FRAME_PIXELS) {
    return "frame_too_large";
  }
  if (!probed.hasAudio) return "no_sound";
  if (probed.durationSec !== undefined && probed.durationSec > maxHours * 3600) return "too_long";
  return undefined;
}
