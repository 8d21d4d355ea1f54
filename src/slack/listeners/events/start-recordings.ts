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
import { localeOf } from "../../messages/catalog.ts";
import { buildFileNotices, buildStoreNotice, type FileNotice } from "../../views/thread-replies.ts";
import type { ListenerDeps } from "../deps.ts";
import { type KeptUpload, keptFile } from "../pending-starts.ts";

/** Whose upload it is, is the request's tenant. */
export interface SharedFiles {
  channelId: string;
  userId: string;
  /** The upload's own message, or the thread it was posted in. */
  threadTs: string;
  /** The context of the notes. */
  text: string | undefined;
  files: SlackFile[];
  /** A DM to the bot: every file is meant for it and gets an answer. */
  direct?: boolean;
}

/**
 * Each supported recording becomes one job, however often Slack delivers the event. The bot is
 * quiet: it speaks of other files only when @mentioned, and of nothing in a channel that turned
 * automatic notes off unless @mentioned. Bolt acked the event before this runs and Slack never
 * resends an acked event (https://docs.slack.dev/apis/events-api/, "Retries"), so a file the
 * store cannot take is kept in the request journal until it can: never lost.
 */
export async function startRecordings(deps: ListenerDeps, shared: SharedFiles): Promise<void> {
  const bot = await deps.directory.botUserId();
  if (bot !== undefined && shared.userId === bot) return;
  const mentioned =
    shared.direct === true || (bot !== undefined && (shared.text ?? "").includes(`<@${bot}>`));
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
    // One file Slack cannot describe must not cost the others.
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

/** When the store cannot say, each file is kept instead. */
async function takesUploads(deps: ListenerDeps, shared: SharedFiles): Promise<boolean> {
  try {
    return await deps.jobs.takesUploads(requestTenant(), shared.channelId);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    return true;
  }
}

interface Start {
  origin: Origin;
  /** Comes after the channel's own context. */
  text: string | undefined;
  bot: string | undefined;
  /** Answer about every file, and take recordings whatever the channel's automatic setting. */
  mentioned: boolean;
}

interface Shared {
  file: SlackFile;
  shownName: string | undefined;
}

/** Kept: nothing said yet (the store may be back in a second); not kept: its thread hears now. */
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
    // Once, whichever of the upload's events (or their retries) came first.
    if (!deps.saidLost.first(`${start.origin.channelId}:${file.id}`)) return undefined;
    const locale = localeOf(start.origin.locale);
    const name = shownNameOf(file) ?? shownName;
    const thread = { channel: start.origin.channelId, threadTs: start.origin.threadTs };
    await deps.responder.replyInThread(thread, buildStoreNotice("upload_lost", name, locale));
    return undefined;
  }
}

/** Kept: as the entry now is, for the next pass. */
export type KeptOutcome = { done: true } | { done: false; entry: KeptUpload };

/** With the channel's settings as they are now, and the first attempt's job id if it got one. */
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

/** Once, after `tellAfterMs`; the entry comes back `told`. */
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

/** `resume`: the attempt a store failure gave, to make that same job. */
export async function takeFile(
  deps: ListenerDeps,
  shared: Shared,
  start: Start,
  resume?: StartAttempt,
): Promise<FileNotice | undefined> {
  const { file } = shared;
  // The bot's own uploads (its DOCX in the thread) come back as events.
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
