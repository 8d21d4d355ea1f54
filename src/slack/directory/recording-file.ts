import { extname } from "node:path";
import { z } from "zod";
import type { SourceFile } from "../../jobs/index.ts";
import {
  audioFormatOf,
  checkRecording,
  declaredAudioFormat,
  describesMedia,
  type StartRefusal,
} from "../../recordings/index.ts";
import { safeFileName } from "../../text/index.ts";

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
  // Slack Connect and some shares send a stub: `files.info` completes it.
  file_access: z.string().optional(),
  mode: z.string().optional(),
  // Slack's clips say `audio` or `video` here (their filetype may not).
  media_display_type: z.string().optional(),
  user: z.string().optional(),
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

export function needsFileInfo(file: SlackFile): boolean {
  return (
    file.file_access === "check_file_info" ||
    file.url_private_download === undefined ||
    file.size === undefined
  );
}

/**
 * The job's source, its name made safe (it reaches the Note Service, Slack and logs) and given
 * the format's extension; undefined when nothing says audio.
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

/** `media`: audio or video not taken as it is (worth a sentence); `other`: the bot stays quiet. */
export type FileKind =
  | { kind: "recording"; source: SourceFile }
  | { kind: "media" }
  | { kind: "other" }
  | { kind: "unreadable" };

const UNREADABLE_MODES = new Set(["hidden_by_limit", "tombstone"]);

/** With `canPrepare` (FFmpeg installed) audio and video of any format is a recording. */
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

/** The recording a person picked (the modal, a Workflow step), or why the bot does not take it. */
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

export function isMediaFile(file: SlackFile): boolean {
  return describesMedia({
    name: file.name,
    filetype: file.filetype,
    mimetype: file.mimetype,
    mediaDisplayType: file.media_display_type,
  });
}

/** The name people see in Slack (title, else name), made safe to show. */
export function shownNameOf(file: SlackFile): string | undefined {
  const name = (file.title ?? "").trim() || (file.name ?? "").trim();
  return name === "" ? undefined : safeFileName(name);
}
