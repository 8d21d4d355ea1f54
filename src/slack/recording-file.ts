import { extname } from "node:path";
import { z } from "zod";
import type { SourceFile } from "../jobs/index.ts";
import {
  audioFormatOf,
  checkRecording,
  declaredAudioFormat,
  describesMedia,
  type StartRefusal,
} from "../recordings/index.ts";
import { safeFileName } from "../text/index.ts";

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
  /** `hosted`, `external`, `snippet`, `post`, `hidden_by_limit`, `tombstone`, `file_access`… */
  mode: z.string().optional(),
  /** Slack's clips say `audio` or `video` here (their filetype may not). */
  media_display_type: z.string().optional(),
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
export function toSourceFile(file: SlackFile, canPrepare = false): SourceFile | undefined {
  const name = safeFileName(file.name || file.title || file.id);
  const format = declaredAudioFormat({
    name,
    filetype: file.filetype,
    mimetype: file.mimetype,
  });
  const url = file.url_private_download ?? file.url_private;
  if (url === undefined || !isHttpUrl(url)) return undefined;
  // Audio or video in another format: FFmpeg prepares it, the name stays as people know it.
  const prepared = format === undefined && canPrepare && isMediaFile(file);
  if (format === undefined && !prepared) return undefined;
  const filename =
    format === undefined || audioFormatOf(name) !== undefined
      ? name
      : safeFileName(`${stemOf(name)}.${format}`);
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

/**
 * What a shared file is to the bot:
 * - `recording`: a format the Note Service takes; it becomes a job;
 * - `media`: audio or video it does not take as it is (`.mov`, `.wma`…): worth a sentence;
 * - `other`: plainly not a recording (an image, a document, a PDF, a snippet, an archive, a
 *   canvas): the bot says nothing about it unless asked (@mentioned);
 * - `unreadable`: Slack will not let the bot see it (a Slack Connect stub whose
 *   `files.info` failed, a file hidden by the free plan's limit, a deleted one).
 */
export type FileKind =
  | { kind: "recording"; source: SourceFile }
  | { kind: "media" }
  | { kind: "other" }
  | { kind: "unreadable" };

const UNREADABLE_MODES = new Set(["hidden_by_limit", "tombstone"]);

/**
 * Sorts a shared file (as the event or `files.info` gives it) into a {@link FileKind}; with
 * `canPrepare` (FFmpeg installed) audio and video of any format is a recording.
 */
export function classifyFile(file: SlackFile, canPrepare = false): FileKind {
  if (UNREADABLE_MODES.has(file.mode ?? "") || file.file_access === "check_file_info") {
    return { kind: "unreadable" };
  }
  const source = toSourceFile(file, canPrepare);
  if (source !== undefined) return { kind: "recording", source };
  if (!isMediaFile(file)) return { kind: "other" };
  // Audio or video without a link to download it from: Slack is hiding it from the bot.
  const url = file.url_private_download ?? file.url_private;
  return url === undefined ? { kind: "unreadable" } : { kind: "media" };
}

/**
 * The recording a file picked by a person is (the /meeting-notes modal, a Workflow step), or
 * why the bot does not take it: media it could take only with FFmpeg, not media at all, or a
 * name or size the recordings' rules refuse.
 */
export function pickedRecording(
  file: SlackFile,
  canPrepare: boolean,
): { source: SourceFile; reason?: undefined } | { source?: undefined; reason: StartRefusal } {
  const source = toSourceFile(file, canPrepare);
  if (source === undefined) {
    return { reason: isMediaFile(file) ? "needs_ffmpeg" : "unsupported_format" };
  }
  const reason = checkRecording(source, canPrepare);
  return reason === undefined ? { source } : { reason };
}

/** Whether Slack's description of a file says audio or video (by MIME type, kind or extension). */
export function isMediaFile(file: SlackFile): boolean {
  return describesMedia({
    name: file.name,
    filetype: file.filetype,
    mimetype: file.mimetype,
    mediaDisplayType: file.media_display_type,
  });
}

/**
 * The file's name as people see it in Slack (its title, else its name), made safe to show
 * (one path component, no hidden characters); undefined when Slack gave none.
 */
export function shownNameOf(file: SlackFile): string | undefined {
  const name = (file.title ?? "").trim() || (file.name ?? "").trim();
  return name === "" ? undefined : safeFileName(name);
}
