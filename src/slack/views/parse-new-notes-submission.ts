import { optional } from "../../util/optional.ts";
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
  stateOf,
  textOf,
  tickedOf,
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
  const errors: Record<string, string> = {};
  const recordingFileId = fileOf(state, INPUTS.recording);
  const recentFileId = optionOf(state, INPUTS.recentRecording);
  if (recordingFileId === undefined && recentFileId === undefined) {
    errors[INPUTS.recording.block] = t(locale, "validation.recording_required");
  } else if (recordingFileId !== undefined && recentFileId !== undefined) {
    errors[INPUTS.recording.block] = t(locale, "validation.recording_both");
  }
  const extraNames = parseExtraNames(textOf(state, INPUTS.extraNames));
  const nameError = extraNames
    .map((name) => checkExtraName(name, locale))
    .find((error) => error !== undefined);
  if (nameError !== undefined) errors[INPUTS.extraNames.block] = nameError;
  const contextText = textOf(state, INPUTS.context);
  if (contextText !== undefined && hasControlChars(contextText, { multiline: true })) {
    errors[INPUTS.context.block] = t(locale, "validation.control_chars");
  }
  const destinationChannelId = stateOf(state, INPUTS.destination)?.selected_conversation;
  if (!destinationChannelId) errors[INPUTS.destination.block] = t(locale, "validation.unreadable");
  const language = readLanguage(optionOf(state, INPUTS.language));
  if (language === "invalid") errors[INPUTS.language.block] = t(locale, "validation.language");
  if (Object.keys(errors).length > 0 || language === "invalid" || !destinationChannelId) {
    return { ok: false, errors };
  }
  const participants = stateOf(state, INPUTS.participants)?.selected_users ?? [];
  return {
    ok: true,
    value: {
      participantIds: [...new Set(participants)],
      extraNames,
      destinationChannelId,
      ...optional("recordingFileId", recordingFileId),
      ...optional("recentFileId", recentFileId),
      ...optional("contextText", contextText),
      ...optional("languageHint", language.code),
      ...optional("templateFileId", fileOf(state, INPUTS.template)),
      ...(tickedOf(state, INPUTS.review) === true ? { review: true } : {}),
    },
  };
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
