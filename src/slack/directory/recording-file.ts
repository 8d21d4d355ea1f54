import { extname } from "node:path";
import { z } from "zod";
import type { SourceFile } from "../../jobs/index.ts";
import {
  audioFormatOf,
  checkRecording,
  describesMedia,
  intakeOf,
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

/** What `src/recordings` reads of a file, its name made safe (it reaches Slack and logs). */
function describedOf(file: SlackFile) {
  return {
    name: safeFileName(file.name || file.title || file.id),
    filetype: file.filetype,
    mimetype: file.mimetype,
    mediaDisplayType: file.media_display_type,
  };
}

/** The job's source, named with its format's extension; undefined when it is not taken. */
export function toSourceFile(file: SlackFile, canPrepare = false): SourceFile | undefined {
  const described = describedOf(file);
  const { name } = described;
  const intake = intakeOf(described, canPrepare);
  const url = file.url_private_download ?? file.url_private;
  if (url === undefined || !isHttpUrl(url) || "refusal" in intake) return undefined;
  const filename =
    "prepare" in intake || audioFormatOf(name) !== undefined
      ? name
      : safeFileName(`${stemOf(name)}.${intake.format}`);
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
  const intake = intakeOf(describedOf(file), canPrepare);
  if ("refusal" in intake) return { reason: intake.refusal };
  // No link to download it from: not a file the bot can take.
  const source = toSourceFile(file, canPrepare);
  if (source === undefined) return { reason: "unsupported_format" };
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
