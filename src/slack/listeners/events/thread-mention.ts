import { randomUUID } from "node:crypto";
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import {
  isStoreUnavailable,
  type JobService,
  type Origin,
  StartNotRecorded,
  uploadOptions,
} from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import { requestOrigin, requestTenant } from "../../installs/request-tenant.ts";
import { type Locale, localeOf, t } from "../../messages/catalog.ts";
import type { MessageContent } from "../../views/message-content.ts";
import { sentenceReply } from "../../views/notice-modal.ts";
import { buildFileNotices, buildUsage, type FileNotice } from "../../views/thread-replies.ts";
import { type ListenerDeps, orWhenStoreDown } from "../deps.ts";
import { type MessageRecording, readMessageRecordings } from "../message-recordings.ts";
import { threadParent } from "../thread-recordings.ts";
import { alreadyBeingMade } from "../views/new-notes-job.ts";

const TS = z.string().regex(/^\d{1,12}\.\d{1,8}$/);

const messageSchema = z.looseObject({
  channel: z.string().min(1),
  user: z.string().min(1),
  text: z.string(),
  ts: TS,
  thread_ts: TS.optional(),
  // An app's message carries its own bot_id; a person's none or null.
  bot_id: z.string().nullish(),
  files: z.array(z.unknown()).optional(),
});

/**
 * Read from the `message` events the bot already gets, so no `app_mention` subscription; never
 * an edit, a message with files, or a bot's message, so the bot never answers itself.
 */
export function readMention(event: unknown, botUserId: string) {
  if (!isPlainMessage(event)) return undefined;
  const parsed = messageSchema.safeParse(event);
  if (!parsed.success) return undefined;
  const message = parsed.data;
  if (typeof message.bot_id === "string" || message.user === botUserId) return undefined;
  if ((message.files ?? []).length > 0) return undefined;
  const { text } = message;
  if (!text.includes(`<@${botUserId}>`) && !text.includes(`<@${botUserId}|`)) return undefined;
  const inThread = message.thread_ts !== undefined && message.thread_ts !== message.ts;
  return {
    channelId: message.channel,
    userId: message.user,
    ts: message.ts,
    /** Undefined for a message of the channel itself. */
    threadTs: inThread ? message.thread_ts : undefined,
  };
}

type Mention = NonNullable<ReturnType<typeof readMention>>;

/** Or `thread_broadcast`: a reply also sent to the channel. */
function isPlainMessage(event: unknown): boolean {
  const subtype = (event as { subtype?: unknown } | null)?.subtype;
  return subtype === undefined || subtype === "thread_broadcast";
}

/**
 * The thread parent's recording becomes one job answering there, however often it is mentioned.
 * Every answer is ephemeral, so a busy channel does not see it repeated for every mention.
 */
export function threadMention(deps: ListenerDeps) {
  return async ({ event }: SlackEventMiddlewareArgs<"message"> & AllMiddlewareArgs) => {
    if (!isPlainMessage(event)) return;
    const bot = await deps.directory.botUserId();
    if (bot === undefined) return;
    const mention = readMention(event, bot);
    if (mention === undefined) return;
    // When the store cannot say, the job's own claim still makes one job; a sentence may repeat.
    const first = deps.jobs.claimOnce(`mention:${mention.channelId}:${mention.ts}`);
    if (!(await orWhenStoreDown(first, true))) return;
    await answerMention(deps, mention);
  };
}

async function answerMention(deps: ListenerDeps, mention: Mention) {
  const { locale: slackLocale } = await deps.directory.user(mention.userId);
  const locale = localeOf(slackLocale);
  const { channelId, userId, threadTs } = mention;
  const target = { channel: channelId, user: userId, ...optional("threadTs", threadTs) };
  const tell = (reply: MessageContent) => deps.responder.tellUser(target, reply);
  if (threadTs === undefined) return tell(buildUsage(locale));
  const parent = await threadParent(deps, channelId, threadTs);
  if (parent.kind === "busy") return tell(sentenceReply(t(locale, "mention.history_busy")));
  if (parent.kind === "none") return tell(buildUsage(locale));
  const found = await readMessageRecordings(deps, parent.files);
  if (found.kind === "none") return tell(buildUsage(locale));
  if (found.kind === "refused") return tell(buildFileNotices([found.notice], locale));
  const origin: Origin = {
    ...requestOrigin(),
    channelId,
    threadTs,
    userId,
    ...optional("locale", slackLocale),
  };
  try {
    const reply = await startAll(deps, { origin, text: parent.text, locale }, found.recordings);
    if (reply !== undefined) await tell(reply);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    deps.logger.warn({ err: error }, "store failed: a mention was not carried out");
    await tell(sentenceReply(t(locale, "store.unavailable")));
  }
}

/** As their upload would have, the parent's text as context; says what was not started and why. */
async function startAll(
  deps: ListenerDeps,
  at: { origin: Origin; text: string | undefined; locale: Locale },
  recordings: MessageRecording[],
): Promise<MessageContent | undefined> {
  const { origin, locale } = at;
  const settings = await deps.settings.get(requestTenant(), origin.channelId);
  const options = uploadOptions(settings, at.text);
  const notices: FileNotice[] = [];
  let created = false;
  let duplicate: string | undefined;
  let notAllowed = false;
  for (const { source, file } of recordings) {
    // A share from elsewhere may still not be theirs to use.
    if (!(await deps.permissions.file(file, origin.userId))) {
      notAllowed = true;
      continue;
    }
    const result = await startOrKeep(deps, { origin, source, options });
    if (result === "kept") return sentenceReply(t(locale, "mention.pending"));
    if (result.status === "created") created = true;
    else if (result.status === "duplicate") duplicate ??= source.fileId;
    else notices.push({ name: source.filename, reason: result.reason });
  }
  if (notices.length > 0) return buildFileNotices(notices, locale);
  if (notAllowed && !created) return sentenceReply(t(locale, "permission.recording"));
  if (duplicate === undefined || created) return undefined;
  const where = { channelId: origin.channelId, fileId: duplicate };
  return alreadyBeingMade(deps, where, locale);
}

/** "kept" when the store failed and the journal took it; thrown when it could not. */
async function startOrKeep(deps: ListenerDeps, start: Parameters<JobService["start"]>[0]) {
  try {
    return await deps.jobs.start(start);
  } catch (error) {
    if (!(error instanceof StartNotRecorded)) throw error;
    deps.logger.warn({ err: error }, "store failed: a mention's job is kept for later");
    const kept = await deps.pending.keep({
      kind: "thread",
      id: randomUUID(),
      at: deps.now(),
      ...start,
      attempt: error.attempt,
    });
    if (!kept) throw error;
    return "kept" as const;
  }
}
