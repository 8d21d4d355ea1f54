import { extname } from "node:path";

/** What a file's name and Slack's description say it is: a claim only, the bytes decide. */

/** The formats the Note Service takes as they are, by extension (its API's list). */
export const SUPPORTED_AUDIO_FORMATS: readonly string[] =
  "mp3 mp4 wav m4a ogg flac aac opus webm".split(" ");

/** The lower-case extension of a file name when it is a format the Note Service takes. */
export function audioFormatOf(filename: string): string | undefined {
  const extension = extensionOf(filename);
  return SUPPORTED_AUDIO_FORMATS.includes(extension) ? extension : undefined;
}

/** Slack `filetype` values that map to a supported format. */
const BY_FILETYPE: Readonly<Record<string, string>> = {
  ...Object.fromEntries(SUPPORTED_AUDIO_FORMATS.map((format) => [format, format])),
  mpg: "mp3",
  mpeg: "mp3",
};

/** Audio and video MIME types that map to a supported format. */
const BY_MIMETYPE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries({
    mp3: "audio/mpeg audio/mp3 audio/mpeg3 audio/x-mpeg audio/x-mpeg-3 audio/x-mp3",
    m4a: "audio/mp4 audio/x-m4a audio/m4a audio/mp4a-latm audio/x-mp4",
    mp4: "video/mp4",
    wav: "audio/wav audio/x-wav audio/wave audio/vnd.wave audio/vnd.wav audio/x-pn-wav",
    ogg: "audio/ogg audio/x-ogg application/ogg",
    flac: "audio/flac audio/x-flac",
    aac: "audio/aac audio/x-aac audio/aacp",
    opus: "audio/opus audio/x-opus",
    webm: "audio/webm video/webm",
  }).flatMap(([format, types]) => types.split(" ").map((type) => [type, format])),
);

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
const OTHER_MEDIA_EXTENSIONS = new Set(
  (
    "3g2 3gp aif aifc aiff amr ape asf au avi caf f4v flv m2ts m4b m4v mka mkv mov mp2 " +
    "mpe mts oga qt ra rm rmvb spx ts voc vob w64 weba wma wmv wv"
  ).split(" "),
);

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
