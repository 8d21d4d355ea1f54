import type { Checkboxes, ModalView, RadioButtons } from "@slack/types";
import {
  type ChannelSettings,
  type ChannelSettingsInput,
  channelSettingsSchema,
} from "../../jobs/index.ts";
import { optional } from "../../util/optional.ts";
import { INPUTS, VIEWS } from "../ids.ts";
import { type Locale, type PlainKey, t } from "../messages/catalog.ts";
import { hasControlChars } from "../text/neutralize-mentions.ts";
import { checkboxInput, context, docxInput, input, modal, option, textArea } from "./block-kit.ts";
import { languageSelect, readLanguage } from "./language-select.ts";
import {
  fileOf,
  optionOf,
  type Parsed,
  readStateValues,
  stateOf,
  textOf,
  tickedOf,
} from "./state-values.ts";

export const CLEAR_TEMPLATE = INPUTS.clearTemplate;

const AUTO_ON = "on";
const AUTO_OFF = "off";
const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const DELIVERY_OPTIONS = ["canvas", "transcript", "mentions"] as const;

export interface SettingsSubmission {
  autoTranscribe: boolean;
  languageHint?: string;
  /** Absent when emptied: the channel then has no default context. */
  contextText?: string;
  templateFileId?: string;
  clearTemplate: boolean;
  /** Absent when the submitted modal predates the block: kept as they are. */
  delivery?: Record<(typeof DELIVERY_OPTIONS)[number], boolean>;
  /** Absent when the submitted modal predates the block: kept as it is. */
  review?: boolean;
}

/** `/meeting-notes settings`: the channel's defaults for new jobs. */
export function buildSettingsModal(
  given: ChannelSettingsInput,
  options: { locale: Locale; channelId: string },
): ModalView {
  const { locale, channelId } = options;
  const settings = channelSettingsSchema.parse(given);
  const texts = {
    title: t(locale, "modal.settings.title"),
    submit: t(locale, "modal.settings.submit"),
    close: t(locale, "modal.close"),
  };
  const metadata = JSON.stringify({ channelId, locale });
  return modal(VIEWS.channelSettings, texts, metadata, settingsBlocks(settings, locale, channelId));
}

function settingsBlocks(settings: ChannelSettings, locale: Locale, channelId: string) {
  const channel = CHANNEL_ID.test(channelId) ? `<#${channelId}>` : "";
  const hinted = (hint: PlainKey) => ({ hint: t(locale, hint) });
  const { autoTranscribe, language, context: contextIds, template, delivery } = INPUTS;
  const templateHint = settings.templateId
    ? "settings.template_hint_set"
    : "settings.template_hint_none";
  const reviewTexts = {
    label: t(locale, "settings.review_label"),
    option: t(locale, "settings.review_option"),
    hint: t(locale, "settings.review_hint"),
  };
  const blocks = [
    context(t(locale, "settings.intro", { channel })),
    input(autoTranscribe.block, t(locale, "settings.auto_label"), autoRadio(settings, locale), {
      required: true,
    }),
    input(
      language.block,
      t(locale, "settings.language_label"),
      languageSelect(language.action, locale, settings.languageHint),
      { required: true },
    ),
    input(
      contextIds.block,
      t(locale, "settings.context_label"),
      textArea(contextIds.action, settings.contextText),
      hinted("settings.context_hint"),
    ),
    input(
      template.block,
      t(locale, "settings.template_label"),
      docxInput(template.action),
      hinted(templateHint),
    ),
    input(
      delivery.block,
      t(locale, "settings.delivery_label"),
      deliveryBoxes(settings, locale),
      hinted("settings.delivery_hint"),
    ),
    checkboxInput(INPUTS.review, reviewTexts, settings.review),
  ];
  if (settings.templateId !== undefined) {
    const texts = {
      label: t(locale, "settings.template_clear_label"),
      option: t(locale, "settings.template_clear"),
    };
    blocks.push(checkboxInput(CLEAR_TEMPLATE, texts));
  }
  return blocks;
}

export function parseSettingsSubmission(
  values: unknown,
  locale: Locale = "en",
): Parsed<SettingsSubmission> {
  const refuse = (block: string, sentence: PlainKey) => ({
    ok: false as const,
    errors: { [block]: t(locale, sentence) },
  });
  const state = readStateValues(values);
  const auto = state && optionOf(state, INPUTS.autoTranscribe);
  if (state === undefined || (auto !== AUTO_ON && auto !== AUTO_OFF)) {
    return refuse(INPUTS.autoTranscribe.block, "validation.unreadable");
  }
  const language = readLanguage(optionOf(state, INPUTS.language));
  if (language === "invalid") return refuse(INPUTS.language.block, "validation.language");
  const contextText = textOf(state, INPUTS.context);
  if (contextText !== undefined && hasControlChars(contextText, { multiline: true })) {
    return refuse(INPUTS.context.block, "validation.control_chars");
  }
  const boxes = stateOf(state, INPUTS.delivery);
  const ticked = new Set((boxes?.selected_options ?? []).map((o) => o.value));
  const delivery = {
    canvas: ticked.has("canvas"),
    transcript: ticked.has("transcript"),
    mentions: ticked.has("mentions"),
  };
  const value: SettingsSubmission = {
    autoTranscribe: auto === AUTO_ON,
    clearTemplate: tickedOf(state, CLEAR_TEMPLATE) === true,
    ...optional("delivery", boxes && delivery),
    ...optional("review", tickedOf(state, INPUTS.review)),
    ...optional("languageHint", language.code),
    ...optional("contextText", contextText),
    ...optional("templateFileId", fileOf(state, INPUTS.template)),
  };
  return { ok: true, value };
}

function autoRadio(settings: ChannelSettings, locale: Locale): RadioButtons {
  const on = option(t(locale, "settings.auto_on"), AUTO_ON);
  const off = option(t(locale, "settings.auto_off"), AUTO_OFF);
  return {
    type: "radio_buttons",
    action_id: INPUTS.autoTranscribe.action,
    options: [on, off],
    initial_option: settings.autoTranscribe ? on : off,
  };
}

function deliveryBoxes(settings: ChannelSettings, locale: Locale): Checkboxes {
  const options = DELIVERY_OPTIONS.map((key) => option(t(locale, `settings.delivery_${key}`), key));
  const ticked = options.filter((o) => DELIVERY_OPTIONS.some((k) => k === o.value && settings[k]));
  return {
    type: "checkboxes",
    action_id: INPUTS.delivery.action,
    options,
    ...(ticked.length === 0 ? {} : { initial_options: ticked }),
  };
}
