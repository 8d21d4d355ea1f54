import type { SourceFile } from "../../jobs/index.ts";
import { checkRecording } from "../../recordings/index.ts";
import {
  classifyFile,
  type SlackFile,
  shownNameOf,
  slackFileSchema,
} from "../directory/recording-file.ts";
import type { FileNotice } from "../views/index.ts";
import type { ListenerDeps } from "./deps.ts";

/** Files of one message looked at, at most (Slack puts up to 10 in a message). */
const MAX_FILES = 10;

/** A recording of a message the bot can make notes of, and Slack's description of it. */
export interface MessageRecording {
  source: SourceFile;
  /** As `files.info` gives it: what `Permissions.file` must judge, never a payload's copy. */
  file: SlackFile;
}

/**
 * What a message's files are to the bot, once Slack has described them:
 * - `recordings`: the ones it can make notes of (first the message's first);
 * - `refused`: none it can, and why not for the first that looked like one (Slack hides it
 *   from the bot, audio or video it cannot take, too large…), said with what to do;
 * - `none`: nothing that is or might be a recording (text, an image, a PDF…).
 */
export type MessageRecordings =
  | { kind: "recordings"; recordings: MessageRecording[] }
  | { kind: "refused"; notice: FileNotice }
  | { kind: "none" };

/** A file as a message shows it, and as `files.info` describes it (undefined: refused). */
export interface DescribedFile {
  shown: SlackFile;
  file: SlackFile | undefined;
}

/** The message's files that read as Slack file objects, at most {@link MAX_FILES}. */
export function shownFiles(files: readonly unknown[]): SlackFile[] {
  return files
    .flatMap((raw) => {
      const file = slackFileSchema.safeParse(raw);
      return file.success ? [file.data] : [];
    })
    .slice(0, MAX_FILES);
}

/**
 * The files that are or might be recordings, by what the message shows: audio and video,
 * and the files Slack hides (a Slack Connect stub, the free plan's limit, a deleted file).
 * An image, a PDF or a snippet is none, and costs no look-up.
 */
export function mayBeRecordings(files: readonly SlackFile[], canPrepare: boolean): SlackFile[] {
  return files.filter((file) => classifyFile(file, canPrepare).kind !== "other");
}

/**
 * Reads a message's recordings (a shortcut's message, a thread's parent) as the bot can use
 * them: each file that may be one is described by `files.info` (the copy a payload or a
 * history carries may be a stub, and only Slack's answer says the bot may read it).
 */
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

/**
 * The recordings among files Slack described, or why the first that looked like one is
 * not: `files.info` refused (not in the channel, Slack Connect, deleted), the free plan's
 * limit hides it, audio or video FFmpeg would have to prepare without FFmpeg here, or a
 * recording over the limits. A file Slack describes as no recording after all says nothing.
 */
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
    if (kind.kind === "recording" && file !== undefined) {
      const refusal = checkRecording(kind.source, canPrepare);
      if (refusal !== undefined) notices.push({ name, reason: refusal });
      else if (!recordings.some((r) => r.source.fileId === kind.source.fileId)) {
        recordings.push({ source: kind.source, file });
      }
    } else if (kind.kind === "unreadable") notices.push({ name, reason: "unreadable" });
    else if (kind.kind === "media") notices.push({ name, reason: "needs_ffmpeg" });
  }
  if (recordings.length > 0) return { kind: "recordings", recordings };
  const [notice] = notices;
  return notice === undefined ? { kind: "none" } : { kind: "refused", notice };
}
