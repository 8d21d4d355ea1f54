import { INPUTS } from "../ids.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { hasControlChars } from "../text/neutralize-mentions.ts";
import { readLanguage } from "./language-select.ts";
import { MAX_NAME_CHARS } from "./limits.ts";
import { checkName, cleanName } from "./name-rules.ts";
import {
  fileOf,
  optionOf,
  type Parsed,
  readStateValues,
  type StateValues,
  stateOf,
  textOf,
} from "./state-values.ts";

export interface NewNotesSubmission {
  /** Uploaded in the modal; exactly one of this and `recentFileId`. */
  recordingFileId?: string;
  recentFileId?: string;
  /** The listener turns them into speaker hints with real names. */
  participantIds: string[];
  extraNames: string[];
  contextText?: string;
  /** Absent for automatic detection. */
  languageHint?: string;
  templateFileId?: string;
  destinationChannelId: string;
  /** Ticked; the destination's settings may ask for it anyway. */
  review?: boolean;
}

/** Errors are keyed by block id for `response_action: "errors"`. */
export function parseNewNotesSubmission(
  values: unknown,
  locale: Locale = "en",
): Parsed<NewNotesSubmission> {
  const state = readStateValues(values);
  if (state === undefined) {
    return { ok: false, errors: { [INPUTS.recording.block]: t(locale, "validation.unreadable") } };
  }
  const form = readForm(state);
  const errors = checkForm(form, locale);
  const language = readLanguage(form.language);
  if (language === "invalid") errors[INPUTS.language.block] = t(locale, "validation.language");
  const { destinationChannelId } = form;
  if (Object.keys(errors).length > 0 || language === "invalid" || !destinationChannelId) {
    return { ok: false, errors };
  }
  const value: NewNotesSubmission = {
    participantIds: form.participantIds,
    extraNames: form.extraNames,
    destinationChannelId,
  };
  if (form.recordingFileId !== undefined) value.recordingFileId = form.recordingFileId;
  if (form.recentFileId !== undefined) value.recentFileId = form.recentFileId;
  if (form.contextText !== undefined) value.contextText = form.contextText;
  if (language.code !== undefined) value.languageHint = language.code;
  if (form.templateFileId !== undefined) value.templateFileId = form.templateFileId;
  if (form.review) value.review = true;
  return { ok: true, value };
}

function readForm(state: StateValues) {
  const participants = stateOf(state, INPUTS.participants.block, INPUTS.participants.action);
  const destination = stateOf(state, INPUTS.destination.block, INPUTS.destination.action);
  return {
    recordingFileId: fileOf(state, INPUTS.recording.block, INPUTS.recording.action),
    recentFileId: optionOf(state, INPUTS.recentRecording.block, INPUTS.recentRecording.action),
    participantIds: [...new Set(participants?.selected_users ?? [])],
    extraNames: parseExtraNames(textOf(state, INPUTS.extraNames.block, INPUTS.extraNames.action)),
    contextText: textOf(state, INPUTS.context.block, INPUTS.context.action),
    language: optionOf(state, INPUTS.language.block, INPUTS.language.action),
    templateFileId: fileOf(state, INPUTS.template.block, INPUTS.template.action),
    destinationChannelId: destination?.selected_conversation ?? undefined,
    review: (
      stateOf(state, INPUTS.review.block, INPUTS.review.action)?.selected_options ?? []
    ).some((o) => o.value === INPUTS.review.action),
  };
}

function checkForm(form: ReturnType<typeof readForm>, locale: Locale): Record<string, string> {
  const errors: Record<string, string> = {};
  const { recordingFileId, recentFileId, contextText } = form;
  if (recordingFileId === undefined && recentFileId === undefined) {
    errors[INPUTS.recording.block] = t(locale, "validation.recording_required");
  } else if (recordingFileId !== undefined && recentFileId !== undefined) {
    errors[INPUTS.recording.block] = t(locale, "validation.recording_both");
  }
  const nameError = form.extraNames
    .map((name) => checkExtraName(name, locale))
    .find((error) => error !== undefined);
  if (nameError !== undefined) errors[INPUTS.extraNames.block] = nameError;
  if (contextText !== undefined && hasControlChars(contextText, { multiline: true })) {
    errors[INPUTS.context.block] = t(locale, "validation.control_chars");
  }
  if (!form.destinationChannelId) {
    errors[INPUTS.destination.block] = t(locale, "validation.unreadable");
  }
  return errors;
}

/** Names typed one per line or separated by commas (or semicolons), without duplicates. */
export function parseExtraNames(text: string | undefined): string[] {
  if (text === undefined) return [];
  const names = text
    .split(/[\n,;]/)
    .map(cleanName)
    .filter((name) => name !== "");
  return [...new Set(names)];
}

function checkExtraName(name: string, locale: Locale): string | undefined {
  const error = checkName(name, locale, MAX_NAME_CHARS);
  if (error === undefined || hasControlChars(name)) return error;
  // Several names share one box: say which one is too long.
  return t(locale, "validation.extra_name_too_long", {
    name: `${[...name].slice(0, 20).join("")}…`,
    max: MAX_NAME_CHARS,
  });
}
