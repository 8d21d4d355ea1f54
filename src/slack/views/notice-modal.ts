import type { KnownBlock, ModalView } from "@slack/types";
import { type Locale, t } from "../messages/catalog.ts";
import { context, modal, section } from "./block-kit.ts";
import { asMrkdwn, asPlain, type Safe } from "./job-phrases.ts";
import { SLACK_LIMITS } from "./limits.ts";
import type { MessageContent } from "./message-content.ts";

/** One `callback_id`, metadata and title from the loading view to the last: it stays one modal. */
export interface ModalIdentity {
  callbackId: string;
  privateMetadata: string;
  title: string;
}

/**
 * A `trigger_id` is valid for 3 seconds, so the modal opens before any look-up and is filled
 * after (https://docs.slack.dev/tools/bolt-js/concepts/creating-modals).
 */
export function buildLoadingModal(identity: ModalIdentity, locale: Locale): ModalView {
  return noticeModal(identity, locale, [context(asMrkdwn(t(locale, "notice.loading")))]);
}

/** A modal that says something (a refusal, a failure, a late answer) and can only be closed. */
export function buildNoticeModal(
  identity: ModalIdentity,
  locale: Locale,
  replies: readonly MessageContent[],
): ModalView {
  const blocks = replies.flatMap((reply) =>
    reply.blocks.length > 0 ? reply.blocks : [section(asMrkdwn(reply.text))],
  );
  return noticeModal(identity, locale, blocks.slice(0, SLACK_LIMITS.modalBlocks));
}

export function sentenceReply(sentence: string): MessageContent {
  return { text: sentence, blocks: [section(asMrkdwn(sentence))] };
}

/** The fallback text with mentions neutralised, the block's escaped for mrkdwn. */
export function safeReply(sentence: (safe: Safe) => string): MessageContent {
  return { text: sentence(asPlain), blocks: [section(sentence(asMrkdwn))] };
}

/** Errors that can no longer be shown under their inputs, under "I could not do that:". */
export function errorsReply(errors: Record<string, string>, locale: Locale): MessageContent[] {
  const sentences = [...new Set(Object.values(errors))];
  return [sentenceReply(t(locale, "notice.not_done")), ...sentences.map(sentenceReply)];
}

function noticeModal(identity: ModalIdentity, locale: Locale, blocks: KnownBlock[]): ModalView {
  const texts = { title: identity.title, close: t(locale, "modal.close") };
  return modal(identity.callbackId, texts, identity.privateMetadata, blocks);
}
