import type { ModalView } from "@slack/types";
import { platformErrorOf } from "../gateway/slack-errors.ts";
import { type Locale, t } from "../messages/catalog.ts";
import {
  buildLoadingModal,
  buildNoticeModal,
  type ModalIdentity,
  sentenceReply,
} from "../views/notice-modal.ts";
import type { ListenerDeps } from "./deps.ts";

export interface OpenThenFill {
  triggerId: string;
  /** The loading view's, and a failure's: never a dead modal. */
  identity: ModalIdentity;
  /** Known before any look-up: nothing is looked up before it opens. */
  locale: Locale;
  fill: () => Promise<ModalView>;
}

/**
 * A `trigger_id` is valid for 3 seconds and look-ups may take longer, so `views.open` shows a
 * loading view and `views.update` fills it with the `hash` it returned: a stale fill then
 * fails with `hash_conflict` rather than overwrite what is on screen
 * (https://docs.slack.dev/surfaces/modals). False when the modal could not open.
 */
export async function openThenFill(
  { responder, logger }: ListenerDeps,
  options: OpenThenFill,
): Promise<boolean> {
  const { identity, locale } = options;
  const failed = () =>
    buildNoticeModal(identity, locale, [sentenceReply(t(locale, "notice.failed"))]);
  let opened: { id?: string; hash?: string } | undefined;
  try {
    opened = await responder.openModal(options.triggerId, buildLoadingModal(identity, locale));
  } catch (error) {
    logger.warn({ err: error, code: platformErrorOf(error) }, "could not open a modal");
    return false;
  }
  const viewId = opened?.id;
  if (viewId === undefined) return true;
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
      return true;
    }
    logger.warn({ err: error, code, viewId }, "could not fill a modal; saying so in it");
    await update(failed()).catch((again: unknown) =>
      logger.warn({ err: again, viewId }, "could not say so in the modal"),
    );
  }
  return true;
}
