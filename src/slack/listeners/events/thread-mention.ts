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
import { type Locale, localeOf, t } from "../../messages/index.ts";
import {
  buildFileNotices,
  buildUsage,
  type FileNotice,
  type MessageContent,
  sentenceReply,
} from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { type MessageRecording, readMessageRecordings } from "../message-recordings.ts";
import { threadParent } from "../thread-recordings.ts";
import { alreadyBeingMade } from "../views/new-notes-job.ts";

/** A message ts as Slack writes it (`1718000000.123456`). */
const TS = z.string().regex(/^\d{1,12}\.\d{1,8}$/);

/** The fields of a person's plain message (no subtype) the bot reads for a mention. */
const messageSchema = z.looseObject({
  channel: z.string().min(1),
  user: z.string().min(1),
  text: z.string(),
  ts: TS,
  thread_ts: TS.optional(),
  // A person's message carries no bot_id (or "bot_id": null); an app's carries its own.
  bot_id: z.string().nullish(),
  files: z.array(z.unknown()).optional(),
});

/** A person's message that mentions the bot. */
export interface Mention {
  channelId: string;
  userId: string;
  ts: string;
  /** The thread it is a reply in; undefined for a message of the channel itself. */
  threadTs: string | undefined;
}

/**
 * The mention of the bot (`<@U…>`, or the older `<@U…|name>`) in a person's message, read
 * from the `message` events the bot already gets (`message.channels`, `message.groups`,
 * `message.im`): no `app_mention` subscription is needed for it. Undefined for anything
 * else: a message with another subtype (an edit, a join, `file_share`: an upload that
 * mentions the bot is the upload listener's), one with files, any app's or bot's message (the
 * bot's own above all: it never answers itself), one that does not mention the bot. A
 * reply is a message whose `thread_ts` differs from its `ts`
 * (https://docs.slack.dev/reference/events/message/message_replied).
 */
export function readMention(event: unknown, botUserId: string): Mention | undefined {
  if (!isPlainMessage(event)) return undefined;
  const parsed = messageSchema.safeParse(event);
  if (!parsed.success) return undefined;
  const message = parsed.data;
  if (typeof message.bot_id === "string" || message.user === botUserId) return undefined;
  if ((message.files ?? []).length > 0) return undefined;
  if (!mentions(message.text, botUserId)) return undefined;
  const inThread = message.thread_ts !== undefined && message.thread_ts !== message.ts;
  return {
    channelId: message.channel,
    userId: message.user,
    ts: message.ts,
    threadTs: inThread ? message.thread_ts : undefined,
  };
}

/**
 * A person's message as written: no subtype, or `thread_broadcast` (a reply also sent to
 * the channel, https://docs.slack.dev/reference/events/message/thread_broadcast).
 */
function isPlainMessage(event: unknown): boolean {
  const subtype = (event as { subtype?: unknown } | null)?.subtype;
  return subtype === undefined || subtype === "thread_broadcast";
}

/** Whether `text` mentions the user (`<@U123>` or `<@U123|name>`). */
function mentions(text: string, userId: string): boolean {
  return text.includes(`<@${userId}>`) || text.includes(`<@${userId}|`);
}

/**
 * "@Meeting Notes" said in a recording's thread: the recording of the thread's parent
 * message becomes a job answering in that thread, whatever the channel's automatic
 * setting — once, however often it is said or Slack delivers it: the message is claimed
 * (`mention:channel:ts`, in the store) before anything is done, and the job's start claims
 * the recording in the channel as an upload's does, so a second mention, or the upload's
 * own job, finds it taken. Said where there is no recording: how to use the bot, to the
 * person alone (an ephemeral message: a busy channel does not see it repeated for every
 * mention). Every other answer is the person's alone too.
 */
export function threadMention(deps: ListenerDeps) {
  return async ({ event }: SlackEventMiddlewareArgs<"message"> & AllMiddlewareArgs) => {
    if (!isPlainMessage(event)) return;
    const bot = await deps.directory.botUserId();
    if (bot === undefined) return;
    const mention = readMention(event, bot);
    if (mention === undefined) return;
    if (!(await firstTime(deps, `mention:${mention.channelId}:${mention.ts}`))) return;
    await answerMention(deps, mention);
  };
}

/** True the first time `key` is claimed; when the store cannot say, true (see below). */
async function firstTime(deps: ListenerDeps, key: string): Promise<boolean> {
  try {
    return await deps.jobs.claimOnce(key);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    // The job's own claim still makes one job of it; a sentence may be said twice.
    return true;
  }
}

/** Starts the thread's recordings, or says why not, or how to use the bot. */
async function answerMention(deps: ListenerDeps, mention: Mention) {
  const { locale: slackLocale } = await deps.directory.user(mention.userId);
  const locale = localeOf(slackLocale);
  const target = {
    channel: mention.channelId,
    user: mention.userId,
    ...optional("threadTs", mention.threadTs),
  };
  const tell = (reply: MessageContent) => deps.responder.tellUser(target, reply);
  const { threadTs } = mention;
  if (threadTs === undefined) return tell(buildUsage(locale));
  const parent = await threadParent(deps, mention.channelId, threadTs);
  if (parent.kind === "busy") return tell(sentenceReply(t(locale, "mention.history_busy")));
  if (parent.kind === "none") return tell(buildUsage(locale));
  const found = await readMessageRecordings(deps, parent.files);
  if (found.kind === "none") return tell(buildUsage(locale));
  if (found.kind === "refused") return tell(buildFileNotices([found.notice], locale));
  const origin: Origin = {
    ...requestOrigin(),
    channelId: mention.channelId,
    threadTs,
    userId: mention.userId,
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

/**
 * Starts a job for each recording the person may use, with the channel's settings and the
 * parent's text as context, as its upload would have; what to say, if anything: why a
 * recording was not taken, or where its notes are already being made.
 */
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
    // Those in the thread may still not be allowed the file (a share from elsewhere).
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

/**
 * `JobService.start`; when the store fails, the start is kept in the request journal and
 * made once the store is back ("kept"), or the failure is thrown when it cannot be kept.
 */
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
