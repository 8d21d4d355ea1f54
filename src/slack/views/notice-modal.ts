import type { KnownBlock, ModalView } from "@slack/types";
import { type Locale, t } from "../messages/index.ts";
import { context, modal, section } from "./block-kit.ts";
import { asMrkdwn } from "./job-phrases.ts";
import { SLACK_LIMITS } from "./limits.ts";
import type { MessageContent } from "./message-content.ts";

/**
 * A modal as it is from the moment it opens: its `callback_id`, `private_metadata` and
 * title stay the same from the loading view to the last one, so whatever view of it is on
 * screen, it is the same modal.
 */
export interface ModalIdentity {
  callbackId: string;
  privateMetadata: string;
  title: string;
}

/**
 * The view a modal opens with, on the interaction itself: a `trigger_id` may be exchanged
 * only within 3 seconds ("Pass a valid trigger_id within 3 seconds of receiving it",
 * https://docs.slack.dev/tools/bolt-js/concepts/creating-modals), so the modal opens before
 * any look-up and is filled once they are done. No inputs, no submit button.
 */
export function buildLoadingModal(identity: ModalIdentity, locale: Locale): ModalView {
  return noticeModal(identity, locale, [context(asMrkdwn(t(locale, "notice.loading")))]);
}

/**
 * A modal that says something and can only be closed: a refusal, a failure, how a
 * submission answered after its ack turned out. Each reply shows as its blocks.
 */
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

/** A plain sentence (a field error, a catalog sentence) as a reply, escaped for mrkdwn. */
export function sentenceReply(sentence: string): MessageContent {
  return { text: sentence, blocks: [section(asMrkdwn(sentence))] };
}

/**
 * The sentences of errors keyed by block id, under "I could not do that:", for when they
 * cannot be shown under their inputs (the modal no longer shows them).
 */
export function errorsReply(errors: Record<string, string>, locale: Locale): MessageContent[] {
  const sentences = [...new Set(Object.values(errors))];
  return [sentenceReply(t(locale, "notice.not_done")), ...sentences.map(sentenceReply)];
}

function noticeModal(identity: ModalIdentity, locale: Locale, blocks: KnownBlock[]): ModalView {
  const texts = { title: identity.title, close: t(locale, "modal.close") };
  return modal(identity.callbackId, texts, identity.privateMetadata, blocks);
}
