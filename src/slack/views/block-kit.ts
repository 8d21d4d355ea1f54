import type {
  ActionsBlock,
  Button,
  Checkboxes,
  ContextBlock,
  DividerBlock,
  FileInput,
  HeaderBlock,
  InputBlock,
  InputBlockElement,
  KnownBlock,
  ModalView,
  MrkdwnElement,
  PlainTextElement,
  PlainTextInput,
  PlainTextOption,
  SectionBlock,
} from "@slack/types";
import { optional } from "../../util/optional.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { clampMrkdwn, clampText } from "../text/clamp-text.ts";
import { SLACK_LIMITS } from "./limits.ts";

/**
 * Block Kit constructors that clamp labels (one over its limit fails the whole `views.open`); note
 * text never goes through them.
 */

export function plain(text: string, max: number = SLACK_LIMITS.inputLabel): PlainTextElement {
  return { type: "plain_text", text: clampText(text, max), emoji: true };
}

/** Mrkdwn that the caller has already escaped. */
export function mrkdwn(text: string, max: number = SLACK_LIMITS.sectionText): MrkdwnElement {
  return { type: "mrkdwn", text: clampMrkdwn(text, max) };
}

export function section(text: string, accessory?: Button): SectionBlock {
  return { type: "section", text: mrkdwn(text), ...optional("accessory", accessory) };
}

export function context(...texts: string[]): ContextBlock {
  return { type: "context", elements: texts.map((text) => mrkdwn(text, SLACK_LIMITS.contextText)) };
}

export function header(text: string): HeaderBlock {
  return { type: "header", text: plain(text, SLACK_LIMITS.headerText) };
}

export function divider(): DividerBlock {
  return { type: "divider" };
}

export function actions(blockId: string, elements: Button[]): ActionsBlock {
  return { type: "actions", block_id: blockId, elements };
}

/** A button whose `value` is the job id, as every listener of ours expects. */
export function button(
  actionId: string,
  label: string,
  value: string,
  style?: "primary" | "danger",
): Button {
  return {
    type: "button",
    action_id: actionId,
    text: plain(label, SLACK_LIMITS.buttonText),
    value,
    ...optional("style", style),
  };
}

/** A danger button that asks first: a slip of the finger must not throw work away. */
export function confirmedButton(
  actionId: string,
  kind: "cancel" | "discard",
  value: string,
  locale: Locale,
): Button {
  return {
    ...button(actionId, t(locale, `button.${kind}`), value, "danger"),
    confirm: {
      title: { type: "plain_text", text: t(locale, `confirm.${kind}.title`) },
      text: { type: "plain_text", text: t(locale, `confirm.${kind}.text`) },
      confirm: { type: "plain_text", text: t(locale, `confirm.${kind}.yes`) },
      deny: { type: "plain_text", text: t(locale, `confirm.${kind}.no`) },
      style: "danger",
    },
  };
}

export function option(text: string, value: string): PlainTextOption {
  return { text: plain(text, SLACK_LIMITS.optionText), value };
}

/** Optional unless `required`: most of our inputs may be left empty. */
export function input(
  blockId: string,
  label: string,
  element: InputBlockElement,
  extra: { required?: boolean; hint?: string } = {},
): InputBlock {
  const block: InputBlock = { type: "input", block_id: blockId, label: plain(label), element };
  if (extra.required !== true) block.optional = true;
  if (extra.hint !== undefined) block.hint = plain(extra.hint);
  return block;
}

/** One optional checkbox, its value the action id. */
export function checkboxInput(
  ids: { block: string; action: string },
  texts: { label: string; option: string; hint?: string },
  ticked = false,
): InputBlock {
  const box = option(texts.option, ids.action);
  const element: Checkboxes = {
    type: "checkboxes",
    action_id: ids.action,
    options: [box],
    ...(ticked ? { initial_options: [box] } : {}),
  };
  return input(ids.block, texts.label, element, optional("hint", texts.hint));
}

/** A multiline text box; `current` is shown only when it fits Slack's limit. */
export function textArea(actionId: string, current?: string): PlainTextInput {
  return {
    type: "plain_text_input",
    action_id: actionId,
    multiline: true,
    max_length: SLACK_LIMITS.plainTextInput,
    ...(current !== undefined && current.length <= SLACK_LIMITS.plainTextInput
      ? { initial_value: current }
      : {}),
  };
}

/** Slack's `file_input` takes at most 10 MB. */
export function docxInput(actionId: string): FileInput {
  return { type: "file_input", action_id: actionId, filetypes: ["docx"], max_files: 1 };
}

/** Without `submit` the modal only shows something and can be closed. */
export function modal(
  callbackId: string,
  texts: { title: string; submit?: string; close: string },
  privateMetadata: string,
  blocks: KnownBlock[],
): ModalView {
  return {
    type: "modal",
    callback_id: callbackId,
    private_metadata: privateMetadata,
    title: plain(texts.title, SLACK_LIMITS.modalTitle),
    ...(texts.submit === undefined
      ? {}
      : { submit: plain(texts.submit, SLACK_LIMITS.modalButton) }),
    close: plain(texts.close, SLACK_LIMITS.modalButton),
    blocks,
  };
}
