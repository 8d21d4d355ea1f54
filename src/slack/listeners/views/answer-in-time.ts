import { createHash } from "node:crypto";
import type {
  AllMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewResponseAction,
  ViewSubmitAction,
} from "@slack/bolt";
import type { ModalView } from "@slack/types";
import { z } from "zod";
import { isStoreUnavailable } from "../../../jobs/index.ts";
import { requestTenant } from "../../installs/request-tenant.ts";
import { type Locale, localeOf, t } from "../../messages/catalog.ts";
import type { MessageContent } from "../../views/message-content.ts";
import {
  buildNoticeModal,
  errorsReply,
  type ModalIdentity,
  sentenceReply,
} from "../../views/notice-modal.ts";
import type { ListenerDeps } from "../deps.ts";

export type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * Slack shows an error when a submission is not answered within 3 seconds
 * (https://docs.slack.dev/tools/bolt-js/concepts/acknowledge); two leave one for the network.
 */
export const SUBMISSION_DECISION_MS = 2_000;

/** Errors keyed by block id. */
export type Verdict<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string> };

type View = { id?: unknown; callback_id?: unknown; private_metadata?: unknown; state?: unknown };

export interface TimelySubmission<T> {
  deps: ListenerDeps;
  ack: ViewArgs["ack"];
  view: View;
  locale: Locale;
  /** Of the notices the modal turns into. */
  identity: ModalIdentity;
  /** Who is told, and where, once the modal is closed. */
  replyTo: { channel: string; user: string };
  /** `Date.now()` at the listener's start; the look-ups get the rest of the budget. */
  timing: { startedAt: number; decisionMs?: number | undefined };
  /** Must not throw. */
  check: () => Promise<Verdict<T>>;
  /** On blocks of the submitted view only, else a notice; by default errors under the inputs. */
  refuse?: (errors: Record<string, string>) => ViewResponseAction;
  /** After the ack; returns the success sentence. */
  proceed: (
    value: T,
    tell: (reply: MessageContent) => Promise<void>,
  ) => Promise<MessageContent | undefined>;
}

/** Kept so that a second delivery answers the same. */
const keptAnswerSchema = z.union([
  z.object({ closed: z.literal(true) }),
  z.object({
    update: z.custom<ModalView>(
      (v) => z.looseObject({ type: z.literal("modal") }).safeParse(v).success,
    ),
  }),
]);
type KeptAnswer = z.infer<typeof keptAnswerSchema>;

/**
 * Look-ups in time show errors under the inputs or close the modal; too slow, it says "working on
 * it" until `views.update` shows the outcome. Slack documents no redelivery header for
 * interactions, so a valid submission is claimed in the store: a second delivery gets its answer.
 */
export async function answerInTime<T>(s: TimelySubmission<T>): Promise<void> {
  const key = submissionKey(s.view);
  const memory = s.deps.modals;
  const earlier = await keptAnswer(s.deps, key);
  if (earlier !== undefined) return ackWith(s.ack, earlier);
  const checking = s.check().catch((error: unknown): Verdict<T> => {
    s.deps.logger.error({ err: error }, "a submission's look-ups failed");
    return { ok: false, errors: {} };
  });
  const budget =
    (s.timing.decisionMs ?? SUBMISSION_DECISION_MS) - (Date.now() - s.timing.startedAt);
  const verdict = await within(checking, budget);
  if (verdict?.ok === false) return s.ack(refusal(s, verdict.errors));
  if (!(await memory.claim(key))) {
    // Another delivery won the claim; its answer is kept right after.
    const first = await firstAnswer(s.deps, key);
    return ackWith(s.ack, first ?? { update: working(s) });
  }
  if (verdict === undefined) return answerLate(s, key, checking);
  await memory.keep(requestTenant(), key, { closed: true } satisfies KeptAnswer);
  await s.ack();
  await carryOut(s, verdict.value, (reply) => tellAlone(s, reply));
}

/**
 * The submitter, or undefined once acked; a redelivery gets the first answer before anything that
 * may have changed since (the job moved on once named) is looked at.
 */
export async function freshSubmitter(
  deps: ListenerDeps,
  { ack, view, body }: ViewArgs,
): Promise<string | undefined> {
  const userId = body.user?.id;
  if (typeof userId !== "string") return void (await ack());
  const earlier = await keptAnswer(deps, submissionKey(view));
  if (earlier === undefined) return userId;
  deps.logger.info({ viewId: String(view.id ?? "") }, "a submission delivered again");
  await ackWith(ack, earlier);
  return undefined;
}

async function answerLate<T>(
  s: TimelySubmission<T>,
  key: string,
  checking: Promise<Verdict<T>>,
): Promise<void> {
  const memory = s.deps.modals;
  const first: KeptAnswer = { update: working(s) };
  await memory.keep(requestTenant(), key, first);
  await ackWith(s.ack, first);
  const verdict = await checking;
  const said: MessageContent[] = [];
  const replies = verdict.ok
    ? [...(await carryOut(s, verdict.value, async (reply) => void said.push(reply))), ...said]
    : problems(s, verdict.errors);
  const last = buildNoticeModal(s.identity, s.locale, replies);
  // Shown even when the store cannot keep it for a second delivery.
  await memory
    .keep(requestTenant(), key, { update: last } satisfies KeptAnswer)
    .catch((error: unknown) => s.deps.logger.warn({ err: error }, "a late answer not kept"));
  // No `hash`: on screen is our own "working on it". Refused (modal closed), told alone.
  const viewId = typeof s.view.id === "string" ? s.view.id : "";
  await s.deps.responder.updateModal(viewId, last).catch(async (error: unknown) => {
    s.deps.logger.info({ err: error, viewId }, "modal gone: the outcome is told alone");
    for (const reply of replies) await tellAlone(s, reply);
  });
}

/** Never left as a modal that waits forever. */
async function carryOut<T>(
  s: TimelySubmission<T>,
  value: T,
  tell: (reply: MessageContent) => Promise<void>,
): Promise<MessageContent[]> {
  try {
    const done = await s.proceed(value, tell);
    return done === undefined ? [] : [done];
  } catch (error) {
    s.deps.logger.error({ err: error }, "a modal submission failed after its ack");
    const sentence = isStoreUnavailable(error) ? "store.unavailable" : "notice.failed";
    await tell(sentenceReply(t(s.locale, sentence)));
    return [];
  }
}

/** None (the look-ups failed) is said in the modal. */
function refusal<T>(s: TimelySubmission<T>, errors: Record<string, string>): ViewResponseAction {
  if (Object.keys(errors).length === 0) {
    return {
      response_action: "update",
      view: buildNoticeModal(s.identity, s.locale, problems(s, errors)),
    };
  }
  return s.refuse?.(errors) ?? { response_action: "errors", errors };
}

function tellAlone<T>(s: TimelySubmission<T>, reply: MessageContent): Promise<void> {
  return s.deps.responder.tellUser(s.replyTo, reply);
}

function problems<T>(s: TimelySubmission<T>, errors: Record<string, string>): MessageContent[] {
  if (Object.keys(errors).length > 0) return errorsReply(errors, s.locale);
  return [sentenceReply(t(s.locale, "notice.failed"))];
}

function working<T>(s: TimelySubmission<T>): ModalView {
  return buildNoticeModal(s.identity, s.locale, [sentenceReply(t(s.locale, "notice.working"))]);
}

function ackWith(ack: ViewArgs["ack"], answer: KeptAnswer): Promise<void> {
  return "closed" in answer ? ack() : ack({ response_action: "update", view: answer.update });
}

/** A delivery that lost the claim waits this long for the first one's answer. */
const FIRST_ANSWER_WAIT_MS = 500;

async function firstAnswer(deps: ListenerDeps, key: string): Promise<KeptAnswer | undefined> {
  const until = Date.now() + FIRST_ANSWER_WAIT_MS;
  for (;;) {
    const kept = await keptAnswer(deps, key);
    if (kept !== undefined || Date.now() >= until) return kept;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function keptAnswer(deps: ListenerDeps, key: string): Promise<KeptAnswer | undefined> {
  const parsed = keptAnswerSchema.safeParse(await deps.modals.read(key));
  return parsed.success ? parsed.data : undefined;
}

/** One key for a redelivery and a second Submit; another once anything in the form changed. */
export function submissionKey(view: View): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([view.callback_id, view.private_metadata, view.state ?? null]))
    .digest("hex")
    .slice(0, 32);
  return `submission:${String(view.id ?? "").slice(0, 40)}:${digest}`;
}

export function within<T>(answer: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

const LOCALE_WAIT_MS = 500;

/** The modal's language (its metadata), else the cached one, else a short `users.info`. */
export async function submitterLocale(
  deps: ListenerDeps,
  userId: string,
  shownIn: Locale | undefined,
): Promise<Locale> {
  if (shownIn !== undefined) return shownIn;
  const cached = deps.directory.cachedUser(userId);
  if (cached !== undefined) return localeOf(cached.locale);
  return localeOf((await within(deps.directory.user(userId), LOCALE_WAIT_MS))?.locale);
}
