import { randomUUID } from "node:crypto";
import {
  isStoreUnavailable,
  type Origin,
  type StartAttempt,
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
import type { MessageContent } from "../../views/message-content.ts";
import { buildFileNotices, buildStoreNotice, type FileNotice } from "../../views/thread-replies.ts";
import { attemptOf, type ListenerDeps, orWhenStoreDown } from "../deps.ts";
import { noticeOf } from "../message-recordings.ts";
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
 * Each supported recording becomes one job however often the event comes; unless @mentioned, the
 * bot says nothing of other files. Slack never resends an acked event
 * (https://docs.slack.dev/apis/events-api/, "Retries"), so what the store cannot take is journaled.
 */
export async function startRecordings(deps: ListenerDeps, shared: SharedFiles): Promise<void> {
  const bot = await deps.directory.botUserId();
  if (bot !== undefined && shared.userId === bot) return;
  const mentioned =
    shared.direct === true || (bot !== undefined && (shared.text ?? "").includes(`<@${bot}>`));
  // When the store cannot say, each file is kept instead.
  const takes = deps.jobs.takesUploads(requestTenant(), shared.channelId);
  if (!mentioned && !(await orWhenStoreDown(takes, true))) return;
  const { locale } = await deps.directory.user(shared.userId);
  const start: Start = {
    origin: {
      ...requestOrigin(),
      channelId: shared.channelId,
      threadTs: shared.threadTs,
      userId: shared.userId,
      ...optional("locale", locale),
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
  await sayInThread(deps, start.origin, buildFileNotices(notices, localeOf(locale)));
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
      ...optional("attempt", attemptOf(error)),
    });
    if (kept || !isRecording(deps, file)) return undefined;
    // Once, whichever of the upload's events (or their retries) came first.
    if (!deps.saidLost.first(`${start.origin.channelId}:${file.id}`)) return undefined;
    const lost = buildStoreNotice(
      "upload_lost",
      shownNameOf(file) ?? shownName,
      localeOf(start.origin.locale),
    );
    await sayInThread(deps, start.origin, lost);
    return undefined;
  }
}

/** Kept: as the entry now is, for the next pass. */
type KeptOutcome = { done: true } | { done: false; entry: KeptUpload };

/** With the channel's settings as they are now, and the first attempt's job id if it got one. */
export async function takeKeptUpload(deps: ListenerDeps, entry: KeptUpload): Promise<KeptOutcome> {
  const { origin, mentioned } = entry;
  const start: Start = {
    origin,
    text: entry.text,
    bot: await deps.directory.botUserId(),
    mentioned,
  };
  try {
    if (!mentioned && !(await deps.jobs.takesUploads(tenantOfOrigin(origin), origin.channelId))) {
      return { done: true };
    }
    const shared = { file: entry.file, shownName: entry.shownName };
    const notice = await takeFile(deps, shared, start, entry.attempt);
    if (notice !== undefined) {
      await sayInThread(deps, origin, buildFileNotices([notice], localeOf(origin.locale))).catch(
        (error: unknown) =>
          deps.logger.warn({ err: error }, "could not say why a kept file was not taken"),
      );
    }
    return { done: true };
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    const attempt = attemptOf(error, entry.attempt);
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
  if (!isRecording(deps, entry.file)) return entry;
  const { origin } = entry;
  const name = shownNameOf(entry.file) ?? entry.shownName;
  await sayInThread(
    deps,
    origin,
    buildStoreNotice("upload_waiting", name, localeOf(origin.locale)),
  );
  return { ...entry, told: true };
}

/** `resume`: the attempt a store failure gave, to make that same job. */
async function takeFile(
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
    const { origin, text, mentioned: asked } = start;
    const result = await deps.jobs.startFromUpload(
      { origin, source: kind.source, text, asked },
      resume,
    );
    return result.status === "refused" ? { name, reason: result.reason } : undefined;
  }
  if (!(await deps.jobs.claimOnce(`notice:${start.origin.channelId}:${file.id}`))) {
    return undefined;
  }
  return { name, reason: noticeOf(kind.kind) };
}

function isRecording(deps: ListenerDeps, file: SlackFile): boolean {
  return classifyFile(file, deps.jobs.canPrepare).kind === "recording";
}

function sayInThread(
  deps: ListenerDeps,
  origin: Origin,
  content: MessageContent,
): Promise<unknown> {
  return deps.responder.replyInThread(
    { channel: origin.channelId, threadTs: origin.threadTs },
    content,
  );
}
