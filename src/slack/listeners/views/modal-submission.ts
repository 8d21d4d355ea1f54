import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { optional } from "../../../util/optional.ts";
import { type Locale, t } from "../../messages/catalog.ts";
import { type NewNotesMetadata, parseNewNotesMetadata } from "../../views/new-notes-modal.ts";
import { buildNoticeModal } from "../../views/notice-modal.ts";
import type { Parsed } from "../../views/state-values.ts";
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
