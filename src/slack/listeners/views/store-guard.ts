import type {
  AllMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewResponseAction,
  ViewSubmitAction,
} from "@slack/bolt";
import { isStoreUnavailable } from "../../../jobs/index.ts";
import { type Locale, t } from "../../messages/catalog.ts";
import { buildNoticeModal, sentenceReply } from "../../views/notice-modal.ts";
import { inputBlocksOf } from "../../views/state-values.ts";
import type { ListenerDeps } from "../deps.ts";
import { submitterLocale } from "./answer-in-time.ts";

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * The form stays on screen as filled, to be submitted again later: Slack sends a submission
 * once. A failure after the ack is the submission's own to say (`answerInTime`).
 */
export function sayingStoreDown(
  deps: ListenerDeps,
  handler: (args: ViewArgs) => Promise<void>,
): (args: ViewArgs) => Promise<void> {
  return async (args) => {
    let acked = false;
    const ack: ViewArgs["ack"] = (...response) => {
      acked = true;
      return args.ack(...response);
    };
    try {
      await handler({ ...args, ack });
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      deps.logger.warn({ err: error, acked }, "store failed: a submission was not applied");
      if (acked) return;
      const userId = args.body.user?.id ?? "";
      const locale = await submitterLocale(deps, userId, undefined).catch(() => "en" as const);
      await args.ack(storeDownAnswer(args.view, locale));
    }
  };
}

function storeDownAnswer(view: ViewArgs["view"], locale: Locale): ViewResponseAction {
  const sentence = t(locale, "store.unavailable");
  const block = inputBlocksOf(view)[0];
  if (block !== undefined) return { response_action: "errors", errors: { [block]: sentence } };
  const identity = {
    callbackId: view.callback_id,
    privateMetadata: String(view.private_metadata ?? ""),
    title: view.title?.text ?? "",
  };
  return {
    response_action: "update",
    view: buildNoticeModal(identity, locale, [sentenceReply(sentence)]),
  };
}
