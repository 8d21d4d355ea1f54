import type { ModalView } from "@slack/types";
import type { Logger } from "pino";
import { platformErrorOf } from "../gateway/slack-errors.ts";
import type { SlackResponder } from "../responder/slack-responder.ts";

/** How a modal opened at once gets its real content. */
export interface OpenThenFill {
  responder: SlackResponder;
  logger: Logger;
  triggerId: string;
  /** The view shown at once (`buildLoadingModal`): nothing is looked up before it opens. */
  loading: ModalView;
  /** The modal's real content, or a refusal, once the look-ups are done. */
  fill: () => Promise<ModalView>;
  /** What the modal says when `fill` fails or its view is refused: never a dead modal. */
  failed: () => ModalView;
}

/**
 * Opens a modal on the interaction itself, then fills it. A `trigger_id` may be exchanged
 * only within 3 seconds of the interaction ("Pass a valid trigger_id within 3 seconds of
 * receiving it", https://docs.slack.dev/tools/bolt-js/concepts/creating-modals), and the
 * look-ups behind a modal (`users.info`, `conversations.*`) can take longer in a large or
 * slow workspace: so `views.open` comes first, with a loading view, and `views.update`
 * fills it. The fill passes the `hash` `views.open` returned: Slack refuses it
 * (`hash_conflict`, "the provided hash doesn't match the current stored value",
 * https://docs.slack.dev/reference/methods/views.update) when the view changed meanwhile,
 * so a stale fill loses rather than overwrites what is on screen (see "handling race
 * conditions", https://docs.slack.dev/surfaces/modals). False when the modal could not open.
 */
export async function openThenFill(options: OpenThenFill): Promise<boolean> {
  const { responder, logger } = options;
  let opened: { id?: string; hash?: string } | undefined;
  try {
    opened = await responder.openModal(options.triggerId, options.loading);
  } catch (error) {
    logger.warn({ err: error, code: platformErrorOf(error) }, "could not open a modal");
    return false;
  }
  const viewId = opened?.id;
  if (viewId === undefined) return true;
  const view = await options.fill().catch((error: unknown) => {
    logger.warn({ err: error }, "could not fill a modal");
    return options.failed();
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
    await update(options.failed()).catch((again: unknown) =>
      logger.warn({ err: again, viewId }, "could not say so in the modal"),
    );
  }
  return true;
}
