import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs } from "@slack/bolt";
import type { ModalView } from "@slack/types";
import { z } from "zod";
import { SHORTCUTS, VIEWS } from "../../ids.ts";
import { type Locale, localeOf, t } from "../../messages/index.ts";
import {
  buildFileNotices,
  buildLoadingModal,
  buildNewNotesModal,
  buildNoticeModal,
  type MessageContent,
  type ModalIdentity,
  type RecentRecording,
  sentenceReply,
} from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { mayBeRecordings, readMessageRecordings, shownFiles } from "../message-recordings.ts";
import { openThenFill } from "../open-modal.ts";

type ShortcutArgs = SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs;

/** A message ts as Slack writes it (`1718000000.123456`). */
const TS = z.string().regex(/^\d{1,12}\.\d{1,8}$/);

/**
 * The fields of a `message_action` payload the bot reads (https://docs.slack.dev/reference/
 * interaction-payloads/shortcuts-interaction-payload): who used the shortcut, where, on
 * which message ("the full structure of the message": its ts, its thread, its files), and
 * the `trigger_id` and `response_url` to answer with.
 */
const shortcutSchema = z.looseObject({
  type: z.literal("message_action"),
  callback_id: z.literal(SHORTCUTS.makeNotes),
  trigger_id: z.string().min(1),
  response_url: z.string().min(1),
  user: z.looseObject({ id: z.string().min(1) }),
  channel: z.looseObject({ id: z.string().min(1) }),
  message: z.looseObject({
    ts: TS,
    thread_ts: TS.optional(),
    files: z.array(z.unknown()).optional(),
  }),
});

/** A "Make meeting notes" shortcut as the listener uses it. */
export interface ShortcutRequest {
  userId: string;
  channelId: string;
  /** The thread the notes go in: the message's own, or the one it is a reply in. */
  threadTs: string;
  triggerId: string;
  responseUrl: string;
  /** The message's files as the payload shows them (unvalidated: each is read alone). */
  files: unknown[];
}

/** Reads a shortcut payload; undefined when it is not one Slack sends for this shortcut. */
export function readShortcut(body: unknown): ShortcutRequest | undefined {
  const parsed = shortcutSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const { user, channel, message } = parsed.data;
  return {
    userId: user.id,
    channelId: channel.id,
    threadTs: message.thread_ts ?? message.ts,
    triggerId: parsed.data.trigger_id,
    responseUrl: parsed.data.response_url,
    files: message.files ?? [],
  };
}

/**
 * How long the look-ups may take before the modal opens anyway with a loading view: a
 * `trigger_id` is good for 3 seconds from Slack's sending it ("Pass a valid trigger_id
 * within 3 seconds of receiving it", https://docs.slack.dev/tools/bolt-js/concepts/
 * creating-modals), and `views.open` needs its share.
 */
export const LOOK_UP_BEFORE_OPEN_MS = 1_200;

/** What the shortcut does once Slack has described the message: a modal, or a sentence. */
type Verdict =
  | { kind: "open"; recordings: RecentRecording[] }
  | { kind: "say"; reply: (locale: Locale) => MessageContent };

/**
 * "Make meeting notes" on a message: the `/meeting-notes` modal with the message's
 * recording chosen and its thread as where the notes go, whatever the channel's automatic
 * setting; who may use the recording and post there is checked on submission, as for the
 * command. No recording in the message, or one the bot cannot read (not in the channel,
 * shared from another organization, hidden by the free plan's limit): one sentence, to the
 * person alone (the payload's `response_url`), saying why and what to do.
 *
 * Acked at once. The look-ups (`files.info`, the bot's membership, the person's language)
 * run before the modal opens, so a message without a usable recording opens none; should
 * they outlast {@link LOOK_UP_BEFORE_OPEN_MS}, the modal opens with a loading view and
 * says their outcome in it.
 */
export function makeNotesShortcut(deps: ListenerDeps, options: { lookUpMs?: number } = {}) {
  const lookUpMs = options.lookUpMs ?? LOOK_UP_BEFORE_OPEN_MS;
  return async ({ ack, body }: ShortcutArgs) => {
    await ack();
    const request = readShortcut(body);
    if (request === undefined) {
      deps.logger.warn("a message shortcut payload that cannot be read");
      return;
    }
    const language = deps.directory.user(request.userId).then((user) => localeOf(user.locale));
    const verdict = lookUp(deps, request);
    const both = Promise.all([verdict, language]);
    const early = await within(both, lookUpMs);
    if (early !== undefined) return answer(deps, request, ...early);
    return answerLate(deps, request, both);
  };
}

/** The message's recordings, and whether the bot may read them, asked together. */
async function lookUp(deps: ListenerDeps, request: ShortcutRequest): Promise<Verdict> {
  const noRecording: Verdict = {
    kind: "say",
    reply: (locale) => sentenceReply(t(locale, "shortcut.no_recording")),
  };
  // Text, an image, a PDF: said at once, with no look-up.
  if (mayBeRecordings(shownFiles(request.files), deps.jobs.canPrepare).length === 0) {
    return noRecording;
  }
  const [found, botIn] = await Promise.all([
    readMessageRecordings(deps, request.files),
    deps.directory.botIsMemberNow(request.channelId),
  ]);
  if (found.kind === "none") return noRecording;
  // Not in the channel: files.info may refuse, and the notes could not be posted there.
  if (botIn === false) {
    return { kind: "say", reply: (locale) => sentenceReply(t(locale, "shortcut.not_in_channel")) };
  }
  if (found.kind === "refused") {
    return { kind: "say", reply: (locale) => buildFileNotices([found.notice], locale) };
  }
  const recordings = found.recordings.map((r) => ({
    fileId: r.source.fileId,
    name: r.source.filename,
  }));
  return { kind: "open", recordings };
}

/** The modal, or the sentence, once the look-ups answered in time. */
async function answer(
  deps: ListenerDeps,
  request: ShortcutRequest,
  verdict: Verdict,
  locale: Locale,
): Promise<void> {
  if (verdict.kind === "say") return deps.respond(request.responseUrl, verdict.reply(locale));
  try {
    await deps.responder.openModal(request.triggerId, notesModal(request, verdict, locale));
  } catch (error) {
    deps.logger.warn({ err: error }, "could not open the new-notes modal from a shortcut");
    await deps.respond(request.responseUrl, sentenceReply(t(locale, "notice.open_failed")));
  }
}

/** The look-ups are slow: the modal opens now, and says their outcome once they answer. */
async function answerLate(
  deps: ListenerDeps,
  request: ShortcutRequest,
  lookUps: Promise<[Verdict, Locale]>,
): Promise<void> {
  const early = localeOf(deps.directory.cachedUser(request.userId)?.locale);
  const identity = (locale: Locale): ModalIdentity => ({
    callbackId: VIEWS.newNotes,
    privateMetadata: JSON.stringify({ channelId: request.channelId, locale }),
    title: t(locale, "modal.new_notes.title"),
  });
  const opened = await openThenFill({
    responder: deps.responder,
    logger: deps.logger,
    triggerId: request.triggerId,
    loading: buildLoadingModal(identity(early), early),
    fill: async () => {
      const [verdict, locale] = await lookUps;
      if (verdict.kind === "open") return notesModal(request, verdict, locale);
      return buildNoticeModal(identity(locale), locale, [verdict.reply(locale)]);
    },
    failed: () =>
      buildNoticeModal(identity(early), early, [sentenceReply(t(early, "notice.failed"))]),
  });
  if (opened) return;
  await deps.respond(request.responseUrl, sentenceReply(t(early, "notice.open_failed")));
}

/** The `/meeting-notes` modal with the message's recordings, the first chosen, its thread. */
function notesModal(
  request: ShortcutRequest,
  verdict: Extract<Verdict, { kind: "open" }>,
  locale: Locale,
): ModalView {
  const [first] = verdict.recordings;
  return buildNewNotesModal({
    locale,
    channelId: request.channelId,
    recentRecordings: verdict.recordings,
    ...(first === undefined
      ? {}
      : { fromMessage: { chosenFileId: first.fileId, threadTs: request.threadTs } }),
  });
}

/** What `promise` gives within `ms`; undefined past that (it still runs on). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
