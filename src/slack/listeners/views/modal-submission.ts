import type {
  AllMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewResponseAction,
  ViewSubmitAction,
} from "@slack/bolt";
import { isStoreUnavailable } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import { type Locale, t } from "../../messages/catalog.ts";
import { type NewNotesMetadata, parseNewNotesMetadata } from "../../views/new-notes-modal.ts";
import { buildNoticeModal, sentenceReply } from "../../views/notice-modal.ts";
import { inputBlocksOf, type Parsed } from "../../views/state-values.ts";
import type { ListenerDeps } from "../deps.ts";
import {
  answeredBefore,
  answerInTime,
  submitterLocale,
  type TimelySubmission,
} from "./answer-in-time.ts";

export type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

export interface ReadSubmission<V> {
  userId: string;
  metadata: NewNotesMetadata;
  locale: Locale;
  value: V;
}

/**
 * A payload without a user is dropped; one Slack delivers again gets the first answer
 * ({@link answeredBefore}); unreadable form or metadata is answered with errors. Undefined once
 * acked.
 */
export async function readSubmission<V>(
  deps: ListenerDeps,
  { ack, view, body }: ViewArgs,
  form: {
    parse: (values: ViewArgs["view"]["state"]["values"] | undefined, locale: Locale) => Parsed<V>;
    unreadableBlock: string;
  },
): Promise<ReadSubmission<V> | undefined> {
  const userId = body.user?.id;
  if (typeof userId !== "string") return void (await ack());
  if (await answeredBefore(deps, ack, view)) return undefined;
  const metadata = parseNewNotesMetadata(String(view.private_metadata ?? ""));
  const locale = await submitterLocale(deps, userId, metadata?.locale);
  const parsed = form.parse(view.state?.values, locale);
  if (!parsed.ok) return void (await ack({ response_action: "errors", errors: parsed.errors }));
  if (metadata === undefined) {
    const errors = { [form.unreadableBlock]: t(locale, "validation.unreadable") };
    return void (await ack({ response_action: "errors", errors }));
  }
  return { userId, metadata, locale, value: parsed.value };
}

/** Errors under the inputs or notices in the modal; once it is closed, replies to the person. */
export function answerModal<T>(
  deps: ListenerDeps,
  { ack, view }: ViewArgs,
  a: {
    callbackId: string;
    /** In the person's language. */
    title: string;
    channelId: string;
    userId: string;
    locale: Locale;
    timing: { startedAt: number; decisionMs?: number };
    check: TimelySubmission<T>["check"];
    proceed: TimelySubmission<T>["proceed"];
  },
): Promise<void> {
  const { locale } = a;
  const identity = {
    callbackId: a.callbackId,
    privateMetadata: String(view.private_metadata ?? ""),
    title: a.title,
  };
  const target = { channel: a.channelId, user: a.userId };
  return answerInTime({
    deps,
    ack,
    view,
    locale,
    startedAt: a.timing.startedAt,
    ...optional("budgetMs", a.timing.decisionMs),
    check: a.check,
    refuse: (errors) => ({ response_action: "errors", errors }),
    proceed: a.proceed,
    tellAlone: (reply) => deps.responder.tellUser(target, reply),
    notice: (replies) => buildNoticeModal(identity, locale, replies),
  });
}

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
