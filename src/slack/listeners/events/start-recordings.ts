import type { WebClient } from "@slack/web-api";
import type { Origin } from "../../../jobs/index.ts";
import { localeOf } from "../../messages/index.ts";
import { classifyFile, needsFileInfo, type SlackFile, shownNameOf } from "../../recording-file.ts";
import { buildFileNotices, type FileNotice } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { replyInThread } from "../replies.ts";

export interface SharedFiles {
  teamId: string;
  channelId: string;
  userId: string;
  /** The thread to answer in: the upload's own message, or the thread it was posted in. */
  threadTs: string;
  /** Typed with the upload: it becomes the context of the notes. */
  text: string | undefined;
  files: SlackFile[];
  /** Sent to the bot in a direct message: every file is meant for it and gets an answer. */
  direct?: boolean;
}

/**
 * The upload journey: each supported recording of a message becomes a job (once, however
 * often Slack delivers the event). The bot is quiet by default: it says something only
 * about audio or video it cannot use and files it cannot read — about anything else (a
 * screenshot, a PDF, a snippet, a canvas) only when the message @mentions it. It never
 * reacts to its own files. The channel's settings apply, and nothing happens in a channel
 * that turned automatic notes off.
 */
export async function startRecordings(
  deps: ListenerDeps,
  client: WebClient,
  shared: SharedFiles,
): Promise<void> {
  const bot = await deps.directory.botUserId();
  if (bot !== undefined && shared.userId === bot) return;
  if (!(await deps.jobs.takesUploads(shared.teamId, shared.channelId))) return;
  const { locale: slackLocale } = await deps.directory.user(shared.userId);
  const locale = localeOf(slackLocale);
  const mentioned =
    shared.direct === true || (bot !== undefined && (shared.text ?? "").includes(`<@${bot}>`));
  const start: Start = {
    origin: {
      teamId: shared.teamId,
      channelId: shared.channelId,
      threadTs: shared.threadTs,
      userId: shared.userId,
      ...(slackLocale === undefined ? {} : { locale: slackLocale }),
    },
    text: shared.text,
    bot,
    mentioned,
  };
  const notices: FileNotice[] = [];
  for (const shown of shared.files) {
    // Each file on its own: one that Slack cannot describe must not cost the others.
    try {
      const notice = await takeFile(deps, shared.channelId, shown, start);
      if (notice !== undefined) notices.push(notice);
    } catch (error) {
      deps.logger.error({ err: error, fileId: shown.id }, "could not take a shared file");
    }
  }
  if (notices.length === 0) return;
  const thread = { channel: shared.channelId, threadTs: shared.threadTs };
  await replyInThread(client, thread, buildFileNotices(notices, locale));
}

/** What every file of one upload starts with. */
interface Start {
  origin: Origin;
  /** Typed with the upload: the context of its notes, after the channel's own. */
  text: string | undefined;
  bot: string | undefined;
  /** The upload's message @mentions the bot, or was sent to it: answer about every file. */
  mentioned: boolean;
}

/** Starts one file's job; returns what to say about it, if anything. */
async function takeFile(
  deps: ListenerDeps,
  channelId: string,
  shown: SlackFile,
  start: Start,
): Promise<FileNotice | undefined> {
  const file = needsFileInfo(shown) ? ((await deps.directory.file(shown.id)) ?? shown) : shown;
  // The bot's own uploads (its DOCX in the thread) come back as events: never about them.
  if (start.bot !== undefined && file.user === start.bot) return undefined;
  const name = shownNameOf(file) ?? shownNameOf(shown);
  const kind = classifyFile(file, deps.jobs.canPrepare);
  if (kind.kind === "other" && !start.mentioned) return undefined;
  if (kind.kind === "recording") {
    const { origin, text } = start;
    const result = await deps.jobs.startFromUpload({ origin, source: kind.source, text });
    return result.status === "refused" ? { name, reason: result.reason } : undefined;
  }
  // Said once per file, however often Slack delivers the event.
  if (!(await deps.jobs.claimOnce(`notice:${channelId}:${file.id}`))) return undefined;
  const reason =
    kind.kind === "unreadable"
      ? "unreadable"
      : kind.kind === "media"
        ? "needs_ffmpeg"
        : "unsupported_format";
  return { name, reason };
}
