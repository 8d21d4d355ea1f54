import type { ViewResponseAction } from "@slack/bolt";
import type { Job } from "../../../jobs/index.ts";
import { optional } from "../../../util/optional.ts";
import { INPUTS, speakerBlock } from "../../ids.ts";
import type { Locale } from "../../messages/catalog.ts";
import { buildCommandRefusal, permissionSentence } from "../../views/command-replies.ts";
import { buildNoticeModal, errorsReply, type ModalIdentity } from "../../views/notice-modal.ts";
import { parseSpeakerSubmission } from "../../views/speaker-form.ts";
import {
  buildSpeakerModal,
  parseSpeakerModalMetadata,
  speakerModalIdentity,
  speakerPage,
} from "../../views/speaker-modal.ts";
import { inputBlocksOf } from "../../views/state-values.ts";
import { canRegenerate } from "../actions/open-speaker-modal.ts";
import type { ListenerDeps } from "../deps.ts";
import { requestJob } from "../request-job.ts";
import { chooseTemplate, type TemplateChoice, templateRefusal } from "../save-template.ts";
import {
  answerInTime,
  freshSubmitter,
  submitterLocale,
  type Verdict,
  type ViewArgs,
} from "./answer-in-time.ts";
import { applyNames } from "./apply-names.ts";
import { forgetDraft, keepPage, prefillOf, readDraft, withPage } from "./speaker-drafts.ts";

type Mode = "names" | "regenerate";

interface Page {
  job: Job;
  index: number;
  last: boolean;
  speakerIds: string[];
  /** The only blocks an error may be keyed to. */
  blocks: Set<string>;
}

interface Submission {
  mode: Mode;
  userId: string;
  locale: Locale;
  identity: ModalIdentity;
  viewId: string;
  /** Errors under inputs of the view answered, else the modal turned into their sentences. */
  refuse: (errors: Record<string, string>) => ViewResponseAction;
  firstBlock: string;
}

type Parsed = Extract<ReturnType<typeof parseSpeakerSubmission>, { ok: true }>;

/**
 * One page at a time: pages before the last are kept by view id; the last names every speaker once
 * the submitter is still allowed, as Slack has it now, within 3 seconds ({@link answerInTime}).
 */
export function speakerNamesSubmitted(
  deps: ListenerDeps,
  mode: Mode,
  options: { decisionMs?: number } = {},
) {
  return async (args: ViewArgs) => {
    const startedAt = Date.now();
    const userId = await freshSubmitter(deps, args);
    if (userId === undefined) return;
    const { ack, view } = args;
    const meta = parseSpeakerModalMetadata(view.private_metadata);
    const job = meta === undefined ? undefined : await requestJob(deps, meta.jobId);
    const page = job === undefined ? undefined : pageOf(job, meta?.page ?? 0, mode);
    const s = await submission(deps, view, { mode, userId, page });
    if (
      page === undefined ||
      !(mode === "names" ? page.job.stage === "naming" : canRegenerate(page.job))
    ) {
      const reason = page === undefined ? "not_found" : "wrong_stage";
      const refusal = buildCommandRefusal(reason, mode, s.locale).text;
      return void (await ack(s.refuse({ [s.firstBlock]: refusal })));
    }
    const parsed = parseSpeakerSubmission(view.state?.values, page.speakerIds, s.locale);
    if (!parsed.ok) return void (await ack(s.refuse(parsed.errors)));
    if (!page.last) return void (await ack(await nextPage(deps, s, page, parsed)));
    const draft = await readDraft(deps, s.viewId, page.job.id);
    const entries = withPage(draft, page.speakerIds, parsed.entries);
    await answerInTime({
      deps,
      ack,
      view,
      locale: s.locale,
      identity: s.identity,
      replyTo: { channel: page.job.origin.channelId, user: userId },
      timing: { startedAt, decisionMs: options.decisionMs },
      check: () => checkSubmitter(deps, s, page.job, parsed.templateFileId),
      refuse: s.refuse,
      proceed: async (template, tell) => {
        const changes = { entries, template, contextText: parsed.contextText };
        const done = await applyNames(deps, page.job, mode, changes, { locale: s.locale, tell });
        await forgetDraft(deps, s.viewId);
        return done;
      },
    });
  };
}

async function submission(
  deps: ListenerDeps,
  view: ViewArgs["view"],
  { mode, userId, page }: { mode: Mode; userId: string; page: Page | undefined },
): Promise<Submission> {
  const locale = await submitterLocale(deps, userId, undefined);
  const identity = speakerModalIdentity(mode, String(view.private_metadata ?? ""), locale);
  const shown = inputBlocksOf(view);
  const blocks = shown.length > 0 ? new Set(shown) : (page?.blocks ?? new Set<string>());
  return {
    mode,
    userId,
    locale,
    identity,
    viewId: typeof view.id === "string" ? view.id : "",
    refuse: (errors) => errorsOrNotice(errors, blocks, identity, locale),
    firstBlock: firstBlock(page, blocks),
  };
}

/** "Next": keeps this page's input and shows the next page as it was left. */
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

function pageOf(job: Job, asked: number, mode: Mode): Page {
  const { index, last, speakers } = speakerPage(job, asked);
  const speakerIds = speakers.map((s) => s.speakerId);
  const fields = [speakerBlock.user, speakerBlock.name, speakerBlock.gender];
  const blocks = new Set(speakerIds.flatMap((id) => fields.map((block) => block(id))));
  if (last && mode === "regenerate") {
    blocks.add(INPUTS.context.block);
    blocks.add(INPUTS.template.block);
  }
  return { job, index, last, speakerIds, blocks };
}

function firstBlock(page: Page | undefined, blocks: Set<string>): string {
  const first = page?.speakerIds[0];
  if (first !== undefined) return speakerBlock.name(first);
  // A job gone: the first name input the view shows, if any.
  const shown = [...blocks].find((id) => speakerBlock.parse(id)?.field === "name");
  return shown ?? INPUTS.context.block;
}

/**
 * A key naming no input of the view shows nothing (https://docs.slack.dev/surfaces/modals), so then
 * the view turns into the sentences.
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

/** The modal may have been opened before a role or a membership changed. */
async function checkSubmitter(
  deps: ListenerDeps,
  s: Submission,
  job: Job,
  templateFileId: string | undefined,
): Promise<Verdict<TemplateChoice>> {
  const [decision, template] = await Promise.all([
    deps.permissions.jobAction(s.mode, job, s.userId),
    chooseTemplate(deps, templateFileId, s.userId),
  ]);
  if (!decision.ok) {
    const sentence = permissionSentence(decision.reason, s.mode, s.locale);
    return { ok: false, errors: { [s.firstBlock]: sentence } };
  }
  if (template.kind === "refused") return { ok: false, errors: templateRefusal(s.locale) };
  return { ok: true, value: template };
}
