import type { ViewResponseAction } from "@slack/bolt";
import { isStoreUnavailable } from "../../../jobs/index.ts";
import { type Locale, type PlainKey, t } from "../../messages/catalog.ts";
import { type NewNotesMetadata, parseNewNotesMetadata } from "../../views/new-notes-modal.ts";
import { buildNoticeModal, sentenceReply } from "../../views/notice-modal.ts";
import { inputBlocksOf, type Parsed } from "../../views/state-values.ts";
import type { ListenerDeps } from "../deps.ts";
import {
  freshSubmitter,
  submitterLocale,
  type TimelySubmission,
  type ViewArgs,
} from "./answer-in-time.ts";

export interface ReadSubmission<V> {
  userId: string;
  metadata: NewNotesMetadata;
  locale: Locale;
  value: V;
  /** All {@link answerInTime} needs but the look-ups and the work. */
  answer: Omit<TimelySubmission<V>, "check" | "proceed">;
}

/**
 * For a modal whose metadata names its channel and language ({@link freshSubmitter}); an
 * unreadable form or metadata is answered with errors. Undefined once acked.
 */
export async function readSubmission<V>(
  deps: ListenerDeps,
  args: ViewArgs,
  form: {
    parse: (values: ViewArgs["view"]["state"]["values"] | undefined, locale: Locale) => Parsed<V>;
    unreadableBlock: string;
    title: PlainKey;
    decisionMs: number | undefined;
  },
): Promise<ReadSubmission<V> | undefined> {
  const startedAt = Date.now();
  const userId = await freshSubmitter(deps, args);
  if (userId === undefined) return undefined;
  const { ack, view } = args;
  const metadata = parseNewNotesMetadata(String(view.private_metadata ?? ""));
  const locale = await submitterLocale(deps, userId, metadata?.locale);
  const parsed = form.parse(view.state?.values, locale);
  if (!parsed.ok) return void (await ack({ response_action: "errors", errors: parsed.errors }));
  if (metadata === undefined) {
    const errors = { [form.unreadableBlock]: t(locale, "validation.unreadable") };
    return void (await ack({ response_action: "errors", errors }));
  }
  const identity = {
    callbackId: view.callback_id,
    privateMetadata: String(view.private_metadata ?? ""),
    title: t(locale, form.title),
  };
  const answer = {
    deps,
    ack,
    view,
    locale,
    identity,
    replyTo: { channel: metadata.channelId, user: userId },
    timing: { startedAt, decisionMs: form.decisionMs },
  };
  return { userId, metadata, locale, value: parsed.value, answer };
}

/** The form stays on screen as filled, to be submitted again: Slack sends a submission once. */
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
