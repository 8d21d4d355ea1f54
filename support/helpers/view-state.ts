import { loadObject } from "../../test/fixtures/slack-payloads/index.ts";

/**
 * `view.state.values` of a modal submission, input by input: each input starts as Slack
 * sends it left empty (test/fixtures/slack-payloads/view-state-empty-inputs.json) and gets
 * the value a person chose. Radio buttons and checkboxes, not in that fixture, follow
 * bolt-js's `ViewStateValue` (`selected_option`, `selected_options`).
 */

type State = Record<string, unknown>;
export type StateValues = Record<string, Record<string, State>>;

const EMPTY = loadObject("view-state-empty-inputs") as Record<string, State>;

function empty(type: string): State {
  const state = EMPTY[type];
  if (state === undefined) throw new Error(`no empty state for ${type}`);
  return { ...state };
}

const option = (value: string) => ({
  text: { type: "plain_text", text: value, emoji: true },
  value,
});

/** A `plain_text_input`; `undefined` leaves it empty. */
export const textInput = (value?: string): State =>
  value === undefined ? empty("plain_text_input") : { ...empty("plain_text_input"), value };

/** A `static_select`. */
export const staticSelect = (value?: string): State =>
  value === undefined
    ? empty("static_select")
    : { ...empty("static_select"), selected_option: option(value) };

/** A `file_input` holding the given files (Slack sends their file objects). */
export const fileInput = (...files: { id: string; name: string }[]): State => ({
  ...empty("file_input"),
  files: files.map((file) => ({ ...file, title: file.name })),
});

export const usersSelect = (user?: string): State =>
  user === undefined ? empty("users_select") : { ...empty("users_select"), selected_user: user };

export const multiUsersSelect = (...users: string[]): State => ({
  ...empty("multi_users_select"),
  selected_users: users,
});

export const conversationsSelect = (channel?: string): State =>
  channel === undefined
    ? empty("conversations_select")
    : { ...empty("conversations_select"), selected_conversation: channel };

export const radioButtons = (value?: string): State => ({
  type: "radio_buttons",
  selected_option: value === undefined ? null : option(value),
});

export const checkboxes = (...values: string[]): State => ({
  type: "checkboxes",
  selected_options: values.map(option),
});

/** Puts each input's state under its block and action ids. */
export function stateValues(
  inputs: readonly (readonly [block: string, action: string, state: State])[],
): StateValues {
  const values: StateValues = {};
  for (const [block, action, state] of inputs) values[block] = { [action]: state };
  return values;
}
