import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs } from "@slack/bolt";
import type { ModalView } from "@slack/types";
import { z } from "zod";
import { SHORTCUTS } from "../../ids.ts";
import { type Locale, localeOf, t } from "../../messages/catalog.ts";
import type { MessageContent } from "../../views/message-content.ts";
import { buildNewNotesModal, newNotesIdentity } from "../../views/new-notes-modal.ts";
import { buildNoticeModal, sentenceReply } from "../../views/notice-modal.ts";
import type { RecentRecording } from "../../views/recent-select.ts";
import { buildFileNotices } from "../../views/thread-replies.ts";
import type { ListenerDeps } from "../deps.ts";
import { mayBeRecordings, readMessageRecordings, shownFiles } from "../message-recordings.ts";
import { openThenFill } from "../open-modal.ts";
import { within } from "../views/answer-in-time.ts";

type ShortcutArgs = SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs;

const TS = z.string().regex(/^\d{1,12}\.\d{1,8}$/);

/** https://docs.slack.dev/reference/interaction-payloads/shortcuts-interaction-payload */
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

/** `threadTs`: the message's own thread, or the one it is a reply in. */
export function readShortcut(body: unknown) {
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

type ShortcutRequest = NonNullable<ReturnType<typeof readShortcut>>;

/** Then the modal opens anyway: a `trigger_id` lasts 3 seconds and `views.open` needs its share. */
export const LOOK_UP_BEFORE_OPEN_MS = 1_200;

type Verdict =
  | { kind: "open"; recordings: RecentRecording[] }
  | { kind: "say"; reply: (locale: Locale) => MessageContent };

/**
 * The `/meeting-notes` modal with the message's recording and thread chosen. Look-ups run first,
 * so a message without a usable recording gets one sentence and no modal, unless they are slow.
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

async function lookUp(deps: ListenerDeps, request: ShortcutRequest): Promise<Verdict> {
  const noRecording: Verdict = {
    kind: "say",
    reply: (locale) => sentenceReply(t(locale, "shortcut.no_recording")),
  };
  // Text, an image, a PDF: said at once, without a look-up.
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

function answerLate(
  deps: ListenerDeps,
  request: ShortcutRequest,
  lookUps: Promise<[Verdict, Locale]>,
): Promise<void> {
  const identity = (locale: Locale) => newNotesIdentity(request.channelId, locale);
  return openThenFill(deps, {
    triggerId: request.triggerId,
    userId: request.userId,
    identity,
    fill: async () => {
      const [verdict, locale] = await lookUps;
      if (verdict.kind === "open") return notesModal(request, verdict, locale);
      return buildNoticeModal(identity(locale), locale, [verdict.reply(locale)]);
    },
    tell: (content) => deps.respond(request.responseUrl, content),
  });
}

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
