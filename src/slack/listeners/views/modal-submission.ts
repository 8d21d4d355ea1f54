import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { optional } from "../../../util/optional.ts";
import { type Locale, t } from "../../messages/index.ts";
import {
  buildNoticeModal,
  type NewNotesMetadata,
  parseNewNotesMetadata,
} from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import {
  answeredBefore,
  answerInTime,
  submitterLocale,
  type TimelySubmission,
} from "./answer-in-time.ts";

export type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** A submission read: who sent it, the modal's metadata, their language, the parsed form. */
export interface ReadSubmission<V> {
  userId: string;
  metadata: NewNotesMetadata;
  locale: Locale;
  value: V;
}

type Parsed<V> = { ok: true; value: V } | { ok: false; errors: Record<string, string> };

/**
 * What every modal submission goes through first: a payload without a user is acked and
 * dropped; one Slack delivers again gets the answer the first got ({@link answeredBefore});
 * then the form is parsed, and a form or metadata that cannot be read is answered with the
 * errors under its inputs (`unreadableBlock` for the metadata). Undefined once it has acked.
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

/**
 * Answers a read submission within Slack's 3 seconds ({@link answerInTime}): errors under
 * the form's inputs, or notices in the same modal (`callbackId`, `title`), and replies to
 * the person alone in `channelId` once the modal is closed.
 */
export function answerModal<T>(
  deps: ListenerDeps,
  { ack, view }: ViewArgs,
  a: {
    callbackId: string;
    /** The modal's title, in the person's language. */
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
