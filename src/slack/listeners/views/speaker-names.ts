import type {
  AllMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewResponseAction,
  ViewSubmitAction,
} from "@slack/bolt";
import type { Job } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import { INPUTS, speakerBlock, VIEWS } from "../../ids.ts";
import { type Locale, t } from "../../messages/index.ts";
import {
  buildCommandRefusal,
  buildNoticeModal,
  buildSpeakerModal,
  errorsReply,
  type ModalIdentity,
  parseSpeakerModalMetadata,
  parseSpeakerSubmission,
  permissionSentence,
  speakerPages,
} from "../../views/index.ts";
import { canRegenerate } from "../actions/open-speaker-modal.ts";
import type { ListenerDeps } from "../deps.ts";
import { requestJob } from "../request-job.ts";
import { chooseTemplate, type TemplateChoice, templateRefusal } from "../save-template.ts";
import { answeredBefore, answerInTime, submitterLocale, type Verdict } from "./answer-in-time.ts";
import { applyNames } from "./apply-names.ts";
import { forgetDraft, keepPage, prefillOf, readDraft, withPage } from "./speaker-drafts.ts";

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;
type Mode = "names" | "regenerate";

/** The page of the speaker modal a submission comes from, and what its view holds. */
interface Page {
  job: Job;
  index: number;
  last: boolean;
  speakerIds: string[];
  /** The input blocks of that view: the only ones an error may be keyed to. */
  blocks: Set<string>;
}

/** A submission as read before anything is decided. */
interface Submission {
  mode: Mode;
  userId: string;
  locale: Locale;
  identity: ModalIdentity;
  /** Undefined when the job is gone. */
  page: Page | undefined;
  viewId: string;
  /** Errors under inputs of the view answered, else the modal turned into their sentences. */
  refuse: (errors: Record<string, string>) => ViewResponseAction;
  firstBlock: string;
}

type Parsed = Extract<ReturnType<typeof parseSpeakerSubmission>, { ok: true }>;

/**
 * The speaker modal, in both its modes: names for a job waiting for them, or new names,
 * context and template for a finished job (Regenerate), one page of speakers at a time.
 * `private_metadata` holds the job id and the page; the job is read again and must still
 * be in the right stage. A page before the last is checked and kept (by view id, in the
 * store) and the next page shown. The last page's submission names every speaker of
 * every page, once the submitter is found still allowed (as Slack has their role and
 * membership now) and a new template theirs to use, within the ack's 3 seconds
 * ({@link answerInTime}). Errors go only on inputs of the view answered.
 */
export function speakerNamesSubmitted(
  deps: ListenerDeps,
  mode: Mode,
  options: { decisionMs?: number } = {},
) {
  return async (args: ViewArgs) => {
    const startedAt = Date.now();
    const { ack, view } = args;
    const userId = args.body.user?.id;
    if (typeof userId !== "string") return void (await ack());
    if (await answeredBefore(deps, ack, view)) return;
    const s = await readSubmission(deps, view, mode, userId);
    const { page } = s;
    const fits = (job: Job) => (mode === "names" ? job.stage === "naming" : canRegenerate(job));
    if (page === undefined || !fits(page.job)) {
      const reason = page === undefined ? "not_found" : "wrong_stage";
      const refusal = buildCommandRefusal(reason, mode, s.locale).text;
      return void (await ack(s.refuse({ [s.firstBlock]: refusal })));
    }
    const parsed = parseSpeakerSubmission(view.state?.values, page.speakerIds, s.locale);
    if (!parsed.ok) return void (await ack(s.refuse(parsed.errors)));
    if (!page.last) return void (await ack(await nextPage(deps, s, page, parsed)));
    await nameEveryone(deps, args, { ...s, page }, parsed, { startedAt, ...options });
  };
}

async function readSubmission(
  deps: ListenerDeps,
  view: ViewArgs["view"],
  mode: Mode,
  userId: string,
): Promise<Submission> {
  const meta = parseSpeakerModalMetadata(view.private_metadata);
  const job = meta === undefined ? undefined : await requestJob(deps, meta.jobId);
  const locale = await submitterLocale(deps, userId, undefined);
  const identity: ModalIdentity = {
    callbackId: mode === "names" ? VIEWS.speakerNames : VIEWS.regenerate,
    privateMetadata: String(view.private_metadata ?? ""),
    title: t(locale, mode === "names" ? "modal.speakers.title" : "modal.regenerate.title"),
  };
  const page = job === undefined ? undefined : pageOf(job, meta?.page ?? 0, mode);
  const blocks =
    inputBlocksOf(view.blocks) ?? stateBlocksOf(view.state?.values) ?? page?.blocks ?? new Set();
  return {
    mode,
    userId,
    locale,
    identity,
    page,
    viewId: typeof view.id === "string" ? view.id : "",
    refuse: (errors) => errorsOrNotice(errors, blocks, identity, locale),
    firstBlock: firstBlock(page, blocks),
  };
}

/** "Next": keeps this page's input and answers with the next page, as it was left. */
async function nextPage(
  deps: ListenerDeps,
  s: Submission,
  page: Page,
  parsed: Parsed,
): Promise<ViewResponseAction> {
  const draft = await keepPage(deps, page.job, s.viewId, { ...page, entries: parsed.entries });
  const quotes = await deps.jobs.quotesOf(page.job);
  const next = buildSpeakerModal(page.job, {
    locale: s.locale,
    mode: s.mode,
    quotes,
    page: page.index + 1,
    prefill: prefillOf(draft),
    ...optional("contextText", draft.contextText),
  });
  return { response_action: "update", view: next };
}

/** The last page: every page's names, once checked, within the ack's 3 seconds. */
async function nameEveryone(
  deps: ListenerDeps,
  args: ViewArgs,
  s: Submission & { page: Page },
  parsed: Parsed,
  timing: { startedAt: number; decisionMs?: number },
): Promise<void> {
  const { job } = s.page;
  const draft = await readDraft(deps, s.viewId, job.id);
  const entries = withPage(draft, s.page.speakerIds, parsed.entries);
  const target = { channel: job.origin.channelId, user: s.userId };
  await answerInTime({
    deps,
    ack: args.ack,
    view: args.view,
    locale: s.locale,
    startedAt: timing.startedAt,
    ...optional("budgetMs", timing.decisionMs),
    check: () => checkSubmitter(deps, s, parsed.templateFileId),
    refuse: s.refuse,
    proceed: async (template, tell) => {
      const changes = { entries, template, contextText: parsed.contextText };
      const done = await applyNames(deps, job, s.mode, changes, { locale: s.locale, tell });
      await forgetDraft(deps, s.viewId);
      return done;
    },
    tellAlone: (reply) => deps.responder.tellUser(target, reply),
    notice: (replies) => buildNoticeModal(s.identity, s.locale, replies),
  });
}

/** The page `index` of the job's speaker modal (the last one, past the end). */
function pageOf(job: Job, index: number, mode: Mode): Page {
  const pages = speakerPages(job);
  const at = Math.min(Math.max(0, index), pages.length - 1);
  const speakerIds = (pages[at] ?? []).map((s) => s.speakerId);
  const last = at === pages.length - 1;
  const blocks = new Set(
    speakerIds.flatMap((id) => [
      speakerBlock.user(id),
      speakerBlock.name(id),
      speakerBlock.gender(id),
    ]),
  );
  if (last && mode === "regenerate") {
    blocks.add(INPUTS.context.block);
    blocks.add(INPUTS.template.block);
  }
  return { job, index: at, last, speakerIds, blocks };
}

/**
 * The input blocks of the view submitted, as Slack sends it back (`view.blocks`): an error
 * may name only those. Undefined when the payload lists none (the page's own then count).
 */
function inputBlocksOf(blocks: unknown): Set<string> | undefined {
  if (!Array.isArray(blocks)) return undefined;
  const ids = blocks.flatMap((block: { type?: unknown; block_id?: unknown }) =>
    block?.type === "input" && typeof block.block_id === "string" ? [block.block_id] : [],
  );
  return ids.length === 0 ? undefined : new Set(ids);
}

/**
 * The blocks `view.state.values` names: Slack lists there the input blocks of the view
 * submitted (those left empty too), so they are in it. Undefined when it names none.
 */
function stateBlocksOf(values: unknown): Set<string> | undefined {
  if (typeof values !== "object" || values === null) return undefined;
  const ids = Object.keys(values);
  return ids.length === 0 ? undefined : new Set(ids);
}

/** Where a refusal of the whole submission shows: the page's first input. */
function firstBlock(page: Page | undefined, blocks?: Set<string>): string {
  const first = page?.speakerIds[0];
  if (first !== undefined) return speakerBlock.name(first);
  // A job gone: the first name input the view shows, if any.
  const shown = [...(blocks ?? [])].find((id) => speakerBlock.parse(id)?.field === "name");
  return shown ?? INPUTS.context.block;
}

/**
 * Field errors, when every one is on an input of the view answered: `errors` is keyed by
 * the block_id of the input blocks the messages go under ("Displaying errors in views",
 * https://docs.slack.dev/surfaces/modals), so a key naming no input of that view shows
 * nothing. Otherwise the view turns into their sentences, with nothing to fill in.
 */
function errorsOrNotice(
  errors: Record<string, string>,
  blocks: Set<string>,
  identity: ModalIdentity,
  locale: Locale,
): ViewResponseAction {
  const keys = Object.keys(errors);
  if (keys.length > 0 && keys.every((key) => blocks.has(key))) {
    return { response_action: "errors", errors };
  }
  const view = buildNoticeModal(identity, locale, errorsReply(errors, locale));
  return { response_action: "update", view };
}

/**
 * Checked again on submission, as Slack has it now: the modal could have been opened before
 * a role or a membership changed; and a new template must be the submitter's to use.
 */
async function checkSubmitter(
  deps: ListenerDeps,
  s: Submission & { page: Page },
  templateFileId: string | undefined,
): Promise<Verdict<TemplateChoice>> {
  const [decision, template] = await Promise.all([
    deps.permissions.jobAction(s.mode, s.page.job, s.userId),
    chooseTemplate(deps, templateFileId, s.userId),
  ]);
  if (!decision.ok) {
    const sentence = permissionSentence(decision.reason, s.mode, s.locale);
    return { ok: false, errors: { [s.firstBlock]: sentence } };
  }
  if (template.kind === "refused") return { ok: false, errors: templateRefusal(s.locale) };
  return { ok: true, value: template };
}
