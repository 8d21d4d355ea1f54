import type {
  Checkboxes,
  KnownBlock,
  ModalView,
  PlainTextOption,
  RadioButtons,
} from "@slack/types";
import {
  type ChannelSettings,
  type ChannelSettingsInput,
  channelSettingsSchema,
} from "../../jobs/index.ts";
import { optional } from "../../util/optional.ts";
import { INPUTS, VIEWS } from "../ids.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { hasControlChars } from "../text/neutralize-mentions.ts";
import { checkboxInput, context, docxInput, input, modal, option, textArea } from "./block-kit.ts";
import { languageSelect, readLanguage } from "./language-select.ts";
import { optionOf, type Parsed, readStateValues, stateOf, textOf } from "./state-values.ts";

export const CLEAR_TEMPLATE = INPUTS.clearTemplate;

const AUTO_ON = "on";
const AUTO_OFF = "off";
const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

export interface SettingsSubmission {
  autoTranscribe: boolean;
  languageHint?: string;
  /** Absent when emptied: the channel then has no default context. */
  contextText?: string;
  templateFileId?: string;
  clearTemplate: boolean;
  /** Absent when the submitted modal predates the block: kept as they are. */
  delivery?: { canvas: boolean; transcript: boolean; mentions: boolean };
  /** Absent when the submitted modal predates the block: kept as it is. */
  review?: boolean;
}

const DELIVERY_OPTIONS = ["canvas", "transcript", "mentions"] as const;

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
  const { autoTranscribe, language, context: contextIds, template } = INPUTS;
  const templateHint = settings.templateId
    ? "settings.template_hint_set"
    : "settings.template_hint_none";
  const blocks: KnownBlock[] = [
    context(t(locale, "settings.intro", { channel })),
    input(autoTranscribe.block, t(locale, "settings.auto_label"), autoRadio(settings, locale)),
    input(
      language.block,
      t(locale, "settings.language_label"),
      languageSelect(language.action, locale, settings.languageHint),
    ),
    input(
      contextIds.block,
      t(locale, "settings.context_label"),
      textArea(contextIds.action, settings.contextText),
      {
        optional: true,
        hint: t(locale, "settings.context_hint"),
      },
    ),
    input(template.block, t(locale, "settings.template_label"), docxInput(template.action), {
      optional: true,
      hint: t(locale, templateHint),
    }),
    input(
      INPUTS.delivery.block,
      t(locale, "settings.delivery_label"),
      deliveryBoxes(settings, locale),
      {
        optional: true,
        hint: t(locale, "settings.delivery_hint"),
      },
    ),
    checkboxInput(
      INPUTS.review,
      {
        label: t(locale, "settings.review_label"),
        option: t(locale, "settings.review_option"),
        hint: t(locale, "settings.review_hint"),
      },
      settings.review,
    ),
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
  const state = readStateValues(values);
  const auto = state && optionOf(state, INPUTS.autoTranscribe.block, INPUTS.autoTranscribe.action);
  if (state === undefined || (auto !== AUTO_ON && auto !== AUTO_OFF)) {
    const error = t(locale, "validation.unreadable");
    return { ok: false, errors: { [INPUTS.autoTranscribe.block]: error } };
  }
  const language = readLanguage(optionOf(state, INPUTS.language.block, INPUTS.language.action));
  if (language === "invalid") {
    return { ok: false, errors: { [INPUTS.language.block]: t(locale, "validation.language") } };
  }
  const contextText = textOf(state, INPUTS.context.block, INPUTS.context.action);
  if (contextText !== undefined && hasControlChars(contextText, { multiline: true })) {
    return { ok: false, errors: { [INPUTS.context.block]: t(locale, "validation.control_chars") } };
  }
  const templateFileId = stateOf(state, INPUTS.template.block, INPUTS.template.action)?.files?.[0]
    ?.id;
  const clear = stateOf(state, CLEAR_TEMPLATE.block, CLEAR_TEMPLATE.action)?.selected_options;
  const boxes = stateOf(state, INPUTS.delivery.block, INPUTS.delivery.action);
  const ticked = new Set((boxes?.selected_options ?? []).map((o) => o.value));
  const value: SettingsSubmission = {
    autoTranscribe: auto === AUTO_ON,
    clearTemplate: (clear ?? []).some((o) => o.value === CLEAR_TEMPLATE.action),
  };
  if (boxes !== undefined) {
    value.delivery = {
      canvas: ticked.has("canvas"),
      transcript: ticked.has("transcript"),
      mentions: ticked.has("mentions"),
    };
  }
  const review = stateOf(state, INPUTS.review.block, INPUTS.review.action);
  if (review !== undefined) {
    value.review = (review.selected_options ?? []).some((o) => o.value === INPUTS.review.action);
  }
  if (language.code !== undefined) value.languageHint = language.code;
  if (contextText !== undefined) value.contextText = contextText;
  if (templateFileId !== undefined) value.templateFileId = templateFileId;
  return { ok: true, value };
}

function autoRadio(settings: ChannelSettings, locale: Locale): RadioButtons {
  const options: PlainTextOption[] = [
    option(t(locale, "settings.auto_on"), AUTO_ON),
    option(t(locale, "settings.auto_off"), AUTO_OFF),
  ];
  const initial = settings.autoTranscribe ? options[0] : options[1];
  return {
    type: "radio_buttons",
    action_id: INPUTS.autoTranscribe.action,
    options,
    ...optional("initial_option", initial),
  };
}

function deliveryBoxes(settings: ChannelSettings, locale: Locale): Checkboxes {
  const options = DELIVERY_OPTIONS.map((key) => option(t(locale, `settings.delivery_${key}`), key));
  const ticked = options.filter((_, index) => {
    const key = DELIVERY_OPTIONS[index];
    return key !== undefined && settings[key];
  });
  return {
    type: "checkboxes",
    action_id: INPUTS.delivery.action,
    options,
    ...(ticked.length === 0 ? {} : { initial_options: ticked }),
  };
}
