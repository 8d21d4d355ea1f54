import { extname } from "node:path";

/** What a file's name and Slack's description say it is: a claim only, the bytes decide. */

/** The formats the Note Service takes as they are, by extension (its API's list). */
export const SUPPORTED_AUDIO_FORMATS = [
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

/** The lower-case extension of a file name when it is a format the Note Service takes. */
export function audioFormatOf(filename: string): string | undefined {
  const extension = extensionOf(filename);
  return (SUPPORTED_AUDIO_FORMATS as readonly string[]).includes(extension) ? extension : undefined;
}

/** Slack `filetype` values that map to a supported format. */
const BY_FILETYPE: Readonly<Record<string, string>> = {
  mp3: "mp3",
  mp4: "mp4",
  m4a: "m4a",
  wav: "wav",
  ogg: "ogg",
  flac: "flac",
  aac: "aac",
  opus: "opus",
  webm: "webm",
  mpg: "mp3",
  mpeg: "mp3",
};

/** Audio and video MIME types that map to a supported format. */
const BY_MIMETYPE: Readonly<Record<string, string>> = {
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/mpeg3": "mp3",
  "audio/x-mpeg": "mp3",
  "audio/x-mpeg-3": "mp3",
  "audio/x-mp3": "mp3",
  "audio/mp4a-latm": "m4a",
  "audio/x-mp4": "m4a",
  "audio/vnd.wave": "wav",
  "audio/vnd.wav": "wav",
  "audio/x-pn-wav": "wav",
  "audio/x-aac": "aac",
  "audio/aacp": "aac",
  "audio/x-opus": "opus",
  "audio/x-ogg": "ogg",
  "application/ogg": "ogg",
  "audio/mp4": "m4a",
  "audio/x-m4a": "m4a",
  "audio/m4a": "m4a",
  "video/mp4": "mp4",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/ogg": "ogg",
  "audio/flac": "flac",
  "audio/x-flac": "flac",
  "audio/aac": "aac",
  "audio/opus": "opus",
  "audio/webm": "webm",
  "video/webm": "webm",
};

/** The supported format a file's name, Slack `filetype` or MIME type (maybe empty) names. */
export function declaredAudioFormat(d: {
  name: string;
  filetype?: string | undefined;
  mimetype?: string | undefined;
}): string | undefined {
  return (
    audioFormatOf(d.name) ??
    BY_FILETYPE[(d.filetype ?? "").toLowerCase()] ??
    BY_MIMETYPE[(d.mimetype ?? "").toLowerCase().split(";")[0]?.trim() ?? ""]
  );
}

/**
 * Audio and video extensions FFmpeg prepares (each read by a demuxer of `containers.ts`);
 * playlists and references (`.ram`, `.m3u`) are not recordings.
 */
const OTHER_MEDIA_EXTENSIONS = new Set([
  "3g2",
  "3gp",
  "aif",
  "aifc",
  "aiff",
  "amr",
  "ape",
  "asf",
  "au",
  "avi",
  "caf",
  "f4v",
  "flv",
  "m2ts",
  "m4b",
  "m4v",
  "mka",
  "mkv",
  "mov",
  "mp2",
  "mpe",
  "mts",
  "oga",
  "qt",
  "ra",
  "rm",
  "rmvb",
  "spx",
  "ts",
  "voc",
  "vob",
  "w64",
  "weba",
  "wma",
  "wmv",
  "wv",
]);

/** Whether a file's description says audio or video (by MIME type, kind or extension). */
export function describesMedia(d: {
  name?: string | undefined;
  filetype?: string | undefined;
  mimetype?: string | undefined;
  /** Slack's clips say `audio` or `video` here (their filetype may not). */
  mediaDisplayType?: string | undefined;
}): boolean {
  const mime = (d.mimetype ?? "").toLowerCase();
  const display = (d.mediaDisplayType ?? "").toLowerCase();
  return (
    mime.startsWith("audio/") ||
    mime.startsWith("video/") ||
    display === "audio" ||
    display === "video" ||
    OTHER_MEDIA_EXTENSIONS.has(extensionOf(d.name ?? "")) ||
    OTHER_MEDIA_EXTENSIONS.has((d.filetype ?? "").toLowerCase())
  );
}

function extensionOf(filename: string): string {
  return extname(filename).slice(1).toLowerCase();
}
