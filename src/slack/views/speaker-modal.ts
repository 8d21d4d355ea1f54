import type { KnownBlock, ModalView, StaticSelect } from "@slack/types";
import { z } from "zod";
import type { Job, Quote, SpeakerQuotes, SpeakerSummary } from "../../jobs/index.ts";
import { optional } from "../../util/optional.ts";
import { ACTIONS, INPUTS, MODAL_BLOCKS, SPEAKER_ACTIONS, speakerBlock, VIEWS } from "../ids.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { clampText } from "../text/clamp-text.ts";
import { formatDuration } from "../text/format-duration.ts";
import {
  actions,
  button,
  context,
  divider,
  docxInput,
  input,
  modal,
  option,
  plain,
  section,
  textArea,
} from "./block-kit.ts";
import { asMrkdwn, speakerLabel } from "./job-phrases.ts";
import { MAX_NAME_CHARS, SLACK_LIMITS } from "./limits.ts";
import type { ModalIdentity } from "./notice-modal.ts";
import { prefillFor, type SpeakerPrefill, speakersOf } from "./speaker-form.ts";

export interface SpeakerModalOptions {
  locale: Locale;
  /** `names`: the job waits for names. `regenerate`: new names, context or template. */
  mode: "names" | "regenerate";
  /** Values by speaker id; they win over what the job itself knows. */
  prefill?: Record<string, SpeakerPrefill>;
  /** Kept apart from the job (`JobService.quotesOf`). */
  quotes?: SpeakerQuotes;
  page?: number;
  /** Regenerate: a context typed earlier in this modal, shown instead of the job's. */
  contextText?: string;
}

const BLOCKS_PER_SPEAKER = 5;
const OTHER_BLOCKS = 5;
/** How many speakers one page holds: a modal has at most 100 blocks. */
export const SPEAKERS_PER_PAGE = Math.floor(
  (SLACK_LIMITS.modalBlocks - OTHER_BLOCKS) / BLOCKS_PER_SPEAKER,
);

/** The most heard first, so the seconds diarization split off come last. */
export function speakersInModal(job: Job): SpeakerSummary[] {
  return speakersOf(job)
    .filter((speaker) => speakerBlock.gender(speaker.speakerId).length <= SLACK_LIMITS.blockId)
    .sort((a, b) => b.seconds - a.seconds);
}

/** However many speakers a meeting has, each can be named; always at least one page. */
export function speakerPages(job: Job): SpeakerSummary[][] {
  const speakers = speakersInModal(job);
  const pages: SpeakerSummary[][] = [];
  for (let first = 0; first < speakers.length; first += SPEAKERS_PER_PAGE) {
    pages.push(speakers.slice(first, first + SPEAKERS_PER_PAGE));
  }
  return pages.length === 0 ? [[]] : pages;
}

/** The page asked for (past the end: the last one) and whether it is the last. */
export function speakerPage(job: Job, asked: number) {
  const pages = speakerPages(job);
  const index = Math.min(Math.max(0, asked), pages.length - 1);
  return { pages, index, last: index === pages.length - 1, speakers: pages[index] ?? [] };
}

/** Names speakers or regenerates, a page at a time; the submission re-reads the job's stage. */
export function buildSpeakerModal(job: Job, options: SpeakerModalOptions): ModalView {
  const { locale, mode } = options;
  const { pages, index: page, last, speakers } = speakerPage(job, options.page ?? 0);
  const intro = `${t(locale, "speakers.intro")} ${t(locale, "speakers.optional_hint")}`;
  const blocks: KnownBlock[] = [context(asMrkdwn(intro))];
  if (pages.length > 1) blocks.push(pageLine(pages, page, locale));
  for (const speaker of speakers) {
    const prefill = prefillFor(job, speaker.speakerId, options.prefill);
    const quotes = options.quotes?.[speaker.speakerId] ?? [];
    blocks.push(...speakerBlocks(speaker, quotes, prefill, locale));
  }
  if (last && mode === "regenerate") {
    blocks.push(...regenerateInputs(job, locale, options.contextText));
  }
  if (page > 0) {
    const previous = button(ACTIONS.speakersPrevious, t(locale, "button.previous_page"), job.id);
    blocks.push(actions(MODAL_BLOCKS.speakerPages, [previous]));
  }
  const { callbackId, privateMetadata, title } = speakerModalIdentity(
    mode,
    speakerModalMetadata(job.id, page),
    locale,
  );
  const kind = mode === "names" ? "speakers" : "regenerate";
  const texts = {
    title,
    submit: last ? t(locale, `modal.${kind}.submit`) : t(locale, "modal.speakers.next"),
    close: t(locale, "modal.close"),
  };
  return modal(callbackId, texts, privateMetadata, blocks);
}

/** The same from the loading view to the last page, in either mode. */
export function speakerModalIdentity(
  mode: "names" | "regenerate",
  privateMetadata: string,
  locale: Locale,
): ModalIdentity {
  return {
    callbackId: mode === "names" ? VIEWS.speakerNames : VIEWS.regenerate,
    privateMetadata,
    title: t(locale, mode === "names" ? "modal.speakers.title" : "modal.regenerate.title"),
  };
}

/** "Page 2 of 3: speakers 20 to 38 of 45, the most heard first." */
function pageLine(pages: SpeakerSummary[][], page: number, locale: Locale): KnownBlock {
  const before = pages.slice(0, page).reduce((sum, p) => sum + p.length, 0);
  const total = pages.reduce((sum, p) => sum + p.length, 0);
  const text = t(locale, "speakers.page", {
    page: page + 1,
    pages: pages.length,
    first: before + 1,
    last: before + (pages[page]?.length ?? 0),
    total,
  });
  return context(asMrkdwn(text));
}

const pagedMetadataSchema = z.object({
  jobId: z.string().min(1).max(100),
  page: z.number().int().min(1).max(1_000),
});

/** The first page's is the bare job id, as modals opened before pages existed have it. */
export function speakerModalMetadata(jobId: string, page: number): string {
  return page === 0 ? jobId : JSON.stringify({ jobId, page });
}

/** The job and page a speaker modal is about; undefined for anything we never wrote. */
export function parseSpeakerModalMetadata(
  privateMetadata: unknown,
): { jobId: string; page: number } | undefined {
  if (typeof privateMetadata !== "string" || privateMetadata === "") return undefined;
  if (!privateMetadata.startsWith("{")) return { jobId: privateMetadata.slice(0, 100), page: 0 };
  try {
    const parsed = pagedMetadataSchema.safeParse(JSON.parse(privateMetadata));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A speaker heard for less than this is likely a split-off of another (diarization). */
const BRIEF_SPEAKER_SECONDS = 10;

function speakerBlocks(
  speaker: SpeakerSummary,
  quotes: Quote[],
  prefill: SpeakerPrefill,
  locale: Locale,
) {
  const id = speaker.speakerId;
  const nameInput = {
    type: "plain_text_input" as const,
    action_id: SPEAKER_ACTIONS.name,
    max_length: MAX_NAME_CHARS,
    placeholder: plain(t(locale, "speakers.name_placeholder"), SLACK_LIMITS.placeholder),
    ...(prefill.name ? { initial_value: clampText(prefill.name, MAX_NAME_CHARS) } : {}),
  };
  const userSelect = {
    type: "users_select" as const,
    action_id: SPEAKER_ACTIONS.user,
    placeholder: plain(t(locale, "speakers.user_placeholder"), SLACK_LIMITS.placeholder),
    ...(prefill.userId ? { initial_user: prefill.userId } : {}),
  };
  return [
    divider(),
    section(speakerSummaryText(speaker, quotes, locale)),
    input(speakerBlock.user(id), t(locale, "speakers.user_label"), userSelect),
    input(speakerBlock.name(id), t(locale, "speakers.name_label"), nameInput),
    input(
      speakerBlock.gender(id),
      t(locale, "speakers.gender_label"),
      genderSelect(prefill, locale),
      {
        hint: t(locale, "speakers.gender_hint"),
      },
    ),
  ];
}

/** "*Speaker 1* · 45% of talk time" and up to two quotes with their timestamps. */
function speakerSummaryText(speaker: SpeakerSummary, quotes: Quote[], locale: Locale): string {
  const label = `*${asMrkdwn(speakerLabel(speaker.speakerId, locale))}*`;
  const percent = Math.round(speaker.share * 100);
  const lines = [t(locale, "speakers.share", { speaker: label, percent })];
  if (speaker.seconds < BRIEF_SPEAKER_SECONDS) {
    lines.push(
      `_${t(locale, "speakers.brief", { seconds: Math.max(1, Math.round(speaker.seconds)) })}_`,
    );
  }
  for (const quote of quotes.slice(0, 2)) {
    lines.push(`> \`${formatDuration(quote.atSeconds)}\` ${asMrkdwn(clampText(quote.text, 300))}`);
  }
  if (quotes.length === 0) lines.push(`_${t(locale, "speakers.no_quotes")}_`);
  return lines.join("\n");
}

function genderSelect(prefill: SpeakerPrefill, locale: Locale): StaticSelect {
  const options = [
    option(t(locale, "gender.male"), "male"),
    option(t(locale, "gender.female"), "female"),
  ];
  return {
    type: "static_select",
    action_id: SPEAKER_ACTIONS.gender,
    placeholder: plain(t(locale, "speakers.gender_placeholder"), SLACK_LIMITS.placeholder),
    options,
    ...optional(
      "initial_option",
      options.find((o) => o.value === prefill.gender),
    ),
  };
}

/** A context too long for Slack's input is not shown; left empty, the current one is kept. */
function regenerateInputs(job: Job, locale: Locale, typed: string | undefined): KnownBlock[] {
  const current = typed ?? ("note" in job ? job.note.contextText : job.options.contextText);
  const contextInput = textArea(INPUTS.context.action, current);
  const template = docxInput(INPUTS.template.action);
  return [
    input(INPUTS.context.block, t(locale, "regenerate.context_label"), contextInput, {
      hint: t(locale, "regenerate.context_hint"),
    }),
    input(INPUTS.template.block, t(locale, "regenerate.template_label"), template, {
      hint: t(locale, "regenerate.template_hint"),
    }),
  ];
}
