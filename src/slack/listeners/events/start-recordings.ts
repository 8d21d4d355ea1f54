import { randomUUID } from "node:crypto";
import {
  isStoreUnavailable,
  type Origin,
  type StartAttempt,
  StartNotRecorded,
  tenantOfOrigin,
} from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import {
  classifyFile,
  needsFileInfo,
  type SlackFile,
  shownNameOf,
} from "../../directory/recording-file.ts";
import { requestOrigin, requestTenant } from "../../installs/request-tenant.ts";
import { localeOf } from "../../messages/index.ts";
import { buildFileNotices, buildStoreNotice, type FileNotice } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { type KeptUpload, keptFile } from "../pending-starts.ts";

/** An upload, as its event tells it; whose it is, is the request's tenant. */
export interface SharedFiles {
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
 * that turned automatic notes off — unless the upload's message @mentions the bot (or was
 * sent to it): the person asked for notes.
 *
 * Bolt acked the event before this runs (App.processEvent acks events before any
 * listener, in both modes), and Slack sends an acked event no more: it retries only a
 * delivery that failed or took over 3 s, three times (at once, after 1 minute, after 5),
 * and disables an app that answers fewer than 5 % of its events in an hour
 * (https://docs.slack.dev/apis/events-api/, "Failure conditions", "Retries"). So a file
 * the store cannot take now is kept in the request journal and taken from there once the
 * store is back ({@link takeKeptUpload}), however long that takes: never lost.
 */
export async function startRecordings(deps: ListenerDeps, shared: SharedFiles): Promise<void> {
  const bot = await deps.directory.botUserId();
  if (bot !== undefined && shared.userId === bot) return;
  const mentioned =
    shared.direct === true || (bot !== undefined && (shared.text ?? "").includes(`<@${bot}>`));
  // Asked for (a mention, a direct message): whatever the channel's automatic setting.
  if (!mentioned && !(await takesUploads(deps, shared))) return;
  const { locale: slackLocale } = await deps.directory.user(shared.userId);
  const locale = localeOf(slackLocale);
  const start: Start = {
    origin: {
      ...requestOrigin(),
      channelId: shared.channelId,
      threadTs: shared.threadTs,
      userId: shared.userId,
      ...optional("locale", slackLocale),
    },
    // The mention asks the bot; it is no context for the notes.
    text: bot === undefined ? shared.text : shared.text?.replaceAll(`<@${bot}>`, "").trim(),
    bot,
    mentioned,
  };
  const notices: FileNotice[] = [];
  for (const shown of shared.files) {
    // Each file on its own: one that Slack cannot describe must not cost the others.
    try {
      const file = needsFileInfo(shown) ? ((await deps.directory.file(shown.id)) ?? shown) : shown;
      const notice = await takeOrKeep(deps, { file, shownName: shownNameOf(shown) }, start);
      if (notice !== undefined) notices.push(notice);
    } catch (error) {
      deps.logger.error({ err: error, fileId: shown.id }, "could not take a shared file");
    }
  }
  if (notices.length === 0) return;
  const thread = { channel: shared.channelId, threadTs: shared.threadTs };
  await deps.responder.replyInThread(thread, buildFileNotices(notices, locale));
}

/** Whether the channel takes uploads; when the store cannot say, each file is kept instead. */
async function takesUploads(deps: ListenerDeps, shared: SharedFiles): Promise<boolean> {
  try {
    return await deps.jobs.takesUploads(requestTenant(), shared.channelId);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    return true;
  }
}

/** What every file of one upload starts with. */
interface Start {
  origin: Origin;
  /** Typed with the upload: the context of its notes, after the channel's own. */
  text: string | undefined;
  bot: string | undefined;
  /**
   * The upload's message @mentions the bot, or was sent to it: answer about every file, and
   * take its recordings whatever the channel's automatic setting.
   */
  mentioned: boolean;
}

/** A file as Slack describes it, and its name as the event showed it. */
interface Shared {
  file: SlackFile;
  shownName: string | undefined;
}

/**
 * Takes one file; when the store fails, keeps it in the request journal instead. Kept, it
 * is said nothing of yet (the store may be back in a second); not even kept, its thread
 * hears at once that it was not taken, so the person can share it again.
 */
async function takeOrKeep(
  deps: ListenerDeps,
  shared: Shared,
  start: Start,
): Promise<FileNotice | undefined> {
  try {
    return await takeFile(deps, shared, start);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    const attempt = error instanceof StartNotRecorded ? error.attempt : undefined;
    const { file, shownName } = shared;
    deps.logger.warn({ err: error, fileId: file.id }, "store failed: the upload is kept");
    const kept = await deps.pending.keep({
      kind: "upload",
      id: randomUUID(),
      at: deps.now(),
      origin: start.origin,
      ...optional("text", start.text),
      mentioned: start.mentioned,
      file: keptFile(file),
      ...optional("shownName", shownName),
      ...optional("attempt", attempt),
    });
    if (kept || classifyFile(file, deps.jobs.canPrepare).kind !== "recording") return undefined;
    // Said once, whichever of the upload's events (and Slack's retries of them) came first.
    if (!deps.saidLost.first(`${start.origin.channelId}:${file.id}`)) return undefined;
    const locale = localeOf(start.origin.locale);
    const name = shownNameOf(file) ?? shownName;
    const thread = { channel: start.origin.channelId, threadTs: start.origin.threadTs };
    await deps.responder.replyInThread(thread, buildStoreNotice("upload_lost", name, locale));
    return undefined;
  }
}

/** How replaying a kept upload went: done, or kept (as it now is) for the next pass. */
export type KeptOutcome = { done: true } | { done: false; entry: KeptUpload };

/**
 * Takes a file the store could not take when its event came, as the listener would have
 * (the channel's settings as they are now, the same job id when the first attempt got
 * that far); says in its thread what it would have said.
 */
export async function takeKeptUpload(deps: ListenerDeps, entry: KeptUpload): Promise<KeptOutcome> {
  const { origin } = entry;
  const start: Start = {
    origin,
    text: entry.text,
    bot: await deps.directory.botUserId(),
    mentioned: entry.mentioned,
  };
  try {
    const asked = entry.mentioned;
    if (!asked && !(await deps.jobs.takesUploads(tenantOfOrigin(origin), origin.channelId))) {
      return { done: true };
    }
    const shared = { file: entry.file, shownName: entry.shownName };
    const notice = await takeFile(deps, shared, start, entry.attempt);
    if (notice !== undefined) {
      const thread = { channel: origin.channelId, threadTs: origin.threadTs };
      const said = buildFileNotices([notice], localeOf(origin.locale));
      await deps.responder
        .replyInThread(thread, said)
        .catch((error: unknown) =>
          deps.logger.warn({ err: error }, "could not say why a kept file was not taken"),
        );
    }
    return { done: true };
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    const attempt = error instanceof StartNotRecorded ? error.attempt : entry.attempt;
    return { done: false, entry: { ...entry, ...optional("attempt", attempt) } };
  }
}

/**
 * A kept recording's thread hears once, when it has waited `tellAfterMs` for the store,
 * that it will be taken once the store is back. Resolves with the entry as it is to be
 * kept (`told` once said).
 */
export async function tellKeptUploadWaits(
  deps: ListenerDeps,
  entry: KeptUpload,
  tellAfterMs: number,
): Promise<KeptUpload> {
  if (entry.told === true || deps.now() - entry.at < tellAfterMs) return entry;
  if (classifyFile(entry.file, deps.jobs.canPrepare).kind !== "recording") return entry;
  const { origin } = entry;
  const thread = { channel: origin.channelId, threadTs: origin.threadTs };
  const name = shownNameOf(entry.file) ?? entry.shownName;
  await deps.responder.replyInThread(
    thread,
    buildStoreNotice("upload_waiting", name, localeOf(origin.locale)),
  );
  return { ...entry, told: true };
}

/**
 * Starts one file's job (`resume`: the attempt a store failure gave, to make that same
 * job); returns what to say about it, if anything.
 */
export async function takeFile(
  deps: ListenerDeps,
  shared: Shared,
  start: Start,
  resume?: StartAttempt,
): Promise<FileNotice | undefined> {
  const { file } = shared;
  // The bot's own uploads (its DOCX in the thread) come back as events: never about them.
  if (start.bot !== undefined && file.user === start.bot) return undefined;
  const name = shownNameOf(file) ?? shared.shownName;
  const kind = classifyFile(file, deps.jobs.canPrepare);
  if (kind.kind === "other" && !start.mentioned) return undefined;
  if (kind.kind === "recording") {
    const { origin, text } = start;
    const asked = start.mentioned;
    const upload = { origin, source: kind.source, text, asked };
    const result = await deps.jobs.startFromUpload(upload, resume);
    return result.status === "refused" ? { name, reason: result.reason } : undefined;
  }
  // Said once per file, however often Slack delivers the event.
  if (!(await deps.jobs.claimOnce(`notice:${start.origin.channelId}:${file.id}`))) {
    return undefined;
  }
  const reason =
    kind.kind === "unreadable"
      ? "unreadable"
      : kind.kind === "media"
        ? "needs_ffmpeg"
        : "unsupported_format";
  return { name, reason };
}
