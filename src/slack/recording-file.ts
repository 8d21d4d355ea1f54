import { extname } from "node:path";
import { z } from "zod";
import type { SourceFile } from "../jobs/index.ts";
import { audioFormatOf, safeFileName } from "../notetaker/index.ts";

/** The parts of a Slack file object the bot relies on (events, `files.info`). */
export const slackFileSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  title: z.string().optional(),
  filetype: z.string().optional(),
  mimetype: z.string().optional(),
  size: z.number().int().nonnegative().optional(),
  url_private_download: z.string().optional(),
  url_private: z.string().optional(),
  /** Slack Connect and some shares: the event carries only a stub; call `files.info`. */
  file_access: z.string().optional(),
  mode: z.string().optional(),
  /** Who uploaded it. */
  user: z.string().optional(),
  /** Conversations it was shared in (`files.info`); `shares` is keyed by conversation too. */
  channels: z.array(z.string()).optional(),
  groups: z.array(z.string()).optional(),
  ims: z.array(z.string()).optional(),
  shares: z
    .looseObject({
      public: z.record(z.string(), z.unknown()).optional(),
      private: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});
export type SlackFile = z.infer<typeof slackFileSchema>;

/** Slack `filetype` values and audio/video MIME types that map to a supported format. */
const BY_FILETYPE: Record<string, string> = {
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
const BY_MIMETYPE: Record<string, string> = {
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
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

/** Whether the event's file object is only a stub that `files.info` must complete. */
export function needsFileInfo(file: SlackFile): boolean {
  return (
    file.file_access === "check_file_info" ||
    file.url_private_download === undefined ||
    file.size === undefined
  );
}

/**
 * Turns a Slack file into the job's source. The format is taken from the name's extension,
 * else Slack's `filetype`, else the MIME type (which can be empty right after upload); the
 * name sent to the Note Service gets the matching extension. The name is made safe first
 * (`safeFileName`): it reaches the Note Service, Slack messages and logs. Undefined when
 * nothing says audio.
 */
export function toSourceFile(file: SlackFile): SourceFile | undefined {
  const name = safeFileName(file.name || file.title || file.id);
  const format =
    audioFormatOf(name) ??
    BY_FILETYPE[(file.filetype ?? "").toLowerCase()] ??
    BY_MIMETYPE[(file.mimetype ?? "").toLowerCase().split(";")[0]?.trim() ?? ""];
  const url = file.url_private_download ?? file.url_private;
  if (format === undefined || url === undefined || !isHttpUrl(url)) return undefined;
  const filename =
    audioFormatOf(name) === undefined ? safeFileName(`${stemOf(name)}.${format}`) : name;
  return {
    fileId: file.id,
    filename,
    size: file.size ?? 0,
    downloadUrl: url,
    ...(file.mimetype ? { mimetype: file.mimetype } : {}),
  };
}

function isHttpUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === "https:" || protocol === "http:";
}

function stemOf(name: string): string {
  const ext = extname(name);
  return (ext === "" ? name : name.slice(0, -ext.length)) || "recording";
}
