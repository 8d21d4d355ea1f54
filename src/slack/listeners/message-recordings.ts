import type { SourceFile } from "../../jobs/index.ts";
import { checkRecording } from "../../recordings/index.ts";
import {
  classifyFile,
  type FileKind,
  type SlackFile,
  shownNameOf,
  slackFileSchema,
} from "../directory/recording-file.ts";
import type { FileNotice } from "../views/thread-replies.ts";
import type { ListenerDeps } from "./deps.ts";

/** Slack puts up to 10 in a message. */
const MAX_FILES = 10;

export interface MessageRecording {
  source: SourceFile;
  /** From `files.info`: what `Permissions.file` must judge, never a payload's copy. */
  file: SlackFile;
}

/** `refused`: none usable, with why for the first that looked like one; `none`: none alike. */
export type MessageRecordings =
  | { kind: "recordings"; recordings: MessageRecording[] }
  | { kind: "refused"; notice: FileNotice }
  | { kind: "none" };

/** `file` undefined: `files.info` refused. */
export interface DescribedFile {
  shown: SlackFile;
  file: SlackFile | undefined;
}

export function shownFiles(files: readonly unknown[]): SlackFile[] {
  return files
    .flatMap((raw) => {
      const file = slackFileSchema.safeParse(raw);
      return file.success ? [file.data] : [];
    })
    .slice(0, MAX_FILES);
}

/** Audio, video and the files Slack hides (stubs, deleted files); the rest costs no look-up. */
export function mayBeRecordings(files: readonly SlackFile[], canPrepare: boolean): SlackFile[] {
  return files.filter((file) => classifyFile(file, canPrepare).kind !== "other");
}

/** A payload's or history's copy may be a stub: only `files.info` says the bot may read it. */
export async function readMessageRecordings(
  deps: ListenerDeps,
  files: readonly unknown[],
): Promise<MessageRecordings> {
  const canPrepare = deps.jobs.canPrepare;
  const candidates = mayBeRecordings(shownFiles(files), canPrepare);
  if (candidates.length === 0) return { kind: "none" };
  const described = await Promise.all(
    candidates.map(async (shown) => ({ shown, file: await deps.directory.file(shown.id) })),
  );
  return judgeRecordings(described, canPrepare);
}

/** A file Slack describes as no recording after all says nothing. */
export function judgeRecordings(
  described: readonly DescribedFile[],
  canPrepare: boolean,
): MessageRecordings {
  const recordings: MessageRecording[] = [];
  const notices: FileNotice[] = [];
  for (const { shown, file } of described) {
    const name = (file === undefined ? undefined : shownNameOf(file)) ?? shownNameOf(shown);
    const kind =
      file === undefined ? ({ kind: "unreadable" } as const) : classifyFile(file, canPrepare);
    if (kind.kind === "media" || kind.kind === "unreadable") {
      notices.push({ name, reason: noticeOf(kind.kind) });
    }
    if (kind.kind !== "recording" || file === undefined) continue;
    const refusal = checkRecording(kind.source, canPrepare);
    if (refusal !== undefined) notices.push({ name, reason: refusal });
    else if (!recordings.some((r) => r.source.fileId === kind.source.fileId)) {
      recordings.push({ source: kind.source, file });
    }
  }
  if (recordings.length > 0) return { kind: "recordings", recordings };
  const [notice] = notices;
  return notice === undefined ? { kind: "none" } : { kind: "refused", notice };
}

/** Why a file that is no recording we take was not taken. */
export function noticeOf(kind: Exclude<FileKind["kind"], "recording">): FileNotice["reason"] {
  if (kind === "unreadable") return "unreadable";
  return kind === "media" ? "needs_ffmpeg" : "unsupported_format";
}
