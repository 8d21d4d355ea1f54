import type { ModalView } from "@slack/types";
import { platformErrorOf } from "../gateway/slack-errors.ts";
import { type Locale, localeOf, t } from "../messages/catalog.ts";
import type { MessageContent } from "../views/message-content.ts";
import {
  buildLoadingModal,
  buildNoticeModal,
  type ModalIdentity,
  sentenceReply,
} from "../views/notice-modal.ts";
import type { ListenerDeps } from "./deps.ts";

export interface OpenThenFill {
  triggerId: string;
  /** Whose modal: known before any look-up, their language is the loading view's. */
  userId: string;
  /** The loading view's, and a failure's: never a dead modal. */
  identity: (locale: Locale) => ModalIdentity;
  fill: () => Promise<ModalView>;
  /** Where the person hears that the modal could not open. */
  tell: (content: MessageContent) => Promise<unknown>;
}

/**
 * A `trigger_id` is valid for 3 seconds and look-ups may take longer, so `views.open` shows a
 * loading view and `views.update` fills it with the `hash` it returned: a stale fill then
 * fails with `hash_conflict` rather than overwrite what is on screen
 * (https://docs.slack.dev/surfaces/modals).
 */
export async function openThenFill(deps: ListenerDeps, options: OpenThenFill): Promise<void> {
  const { responder, logger, directory } = deps;
  const locale = localeOf(directory.cachedUser(options.userId)?.locale);
  const identity = options.identity(locale);
  const failed = () =>
    buildNoticeModal(identity, locale, [sentenceReply(t(locale, "notice.failed"))]);
  let opened: { id?: string; hash?: string } | undefined;
  try {
    opened = await responder.openModal(options.triggerId, buildLoadingModal(identity, locale));
  } catch (error) {
    logger.warn({ err: error, code: platformErrorOf(error) }, "could not open a modal");
    const { locale: known } = await directory.user(options.userId);
    await options.tell(sentenceReply(t(localeOf(known), "notice.open_failed")));
    return;
  }
  const viewId = opened?.id;
  if (viewId === undefined) return;
  const view = await options.fill().catch((error: unknown) => {
    logger.warn({ err: error }, "could not fill a modal");
    return failed();
  });
  const hash = opened?.hash;
  const update = (next: ModalView) => responder.updateModal(viewId, next, hash);
  try {
    await update(view);
  } catch (error) {
    const code = platformErrorOf(error);
    // Someone else's newer view, or the person closed the modal: nothing to fill.
    if (code === "hash_conflict" || code === "not_found") {
      logger.info({ code, viewId }, "modal not filled: it changed or closed meanwhile");
      return;
    }
    logger.warn({ err: error, code, viewId }, "could not fill a modal; saying so in it");
    await update(failed()).catch((again: unknown) =>
      logger.warn({ err: again, viewId }, "could not say so in the modal"),
    );
  }
}
