import { optional } from "../../util/optional.ts";
import { INPUTS, SPEAKER_ACTIONS, speakerBlock } from "../ids.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { hasControlChars } from "../text/neutralize-mentions.ts";
import { MAX_NAME_CHARS } from "./limits.ts";
import { checkName, cleanName } from "./name-rules.ts";
import type { Gender } from "./speaker-modal.ts";
import {
  fileOf,
  optionOf,
  readStateValues,
  type StateValues,
  stateOf,
  textOf,
} from "./state-values.ts";

/** A typed name wins over the member's name. */
export interface SpeakerEntry {
  speakerId: string;
  userId?: string;
  name?: string;
  gender?: Gender;
}

export type SpeakerSubmission =
  | {
      ok: true;
      entries: SpeakerEntry[];
      /** Absent when left empty: keep the current. */
      contextText?: string;
      templateFileId?: string;
    }
  | { ok: false; errors: Record<string, string> };

/**
 * Any speaker may be left unnamed (diarization over-splits): only those given a member or a
 * name come back. Errors are keyed by block id, for `response_action: "errors"`.
 */
export function parseSpeakerSubmission(
  values: unknown,
  speakerIds: readonly string[],
  locale: Locale = "en",
): SpeakerSubmission {
  const state = readStateValues(values);
  const firstId = speakerIds[0];
  if (state === undefined) {
    const block = firstId === undefined ? INPUTS.context.block : speakerBlock.name(firstId);
    return { ok: false, errors: { [block]: t(locale, "validation.unreadable") } };
  }
  const { entries, errors } = readSpeakers(state, speakerIds, locale);
  const contextText = textOf(state, INPUTS.context);
  if (contextText !== undefined && hasControlChars(contextText, { multiline: true })) {
    errors[INPUTS.context.block] = t(locale, "validation.control_chars");
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const templateFileId = fileOf(state, INPUTS.template);
  return {
    ok: true,
    entries,
    ...optional("contextText", contextText),
    ...optional("templateFileId", templateFileId),
  };
}

/** A page as it stands, kept when the person goes back; invalid names are left out till submit. */
export function readSpeakerPage(
  values: unknown,
  speakerIds: readonly string[],
): { entries: SpeakerEntry[]; contextText?: string } {
  const state = readStateValues(values);
  if (state === undefined) return { entries: [] };
  const { entries } = readSpeakers(state, speakerIds, "en");
  const contextText = textOf(state, INPUTS.context);
  return contextText === undefined ? { entries } : { entries, contextText };
}

function readSpeakers(state: StateValues, speakerIds: readonly string[], locale: Locale) {
  const errors: Record<string, string> = {};
  const entries: SpeakerEntry[] = [];
  for (const speakerId of speakerIds) {
    const entry = readSpeaker(state, speakerId);
    if (entry.name === undefined && entry.userId === undefined) continue;
    const error =
      entry.name === undefined ? undefined : checkName(entry.name, locale, MAX_NAME_CHARS);
    if (error !== undefined) errors[speakerBlock.name(speakerId)] = error;
    else entries.push(entry);
  }
  return { entries, errors };
}

function readSpeaker(state: StateValues, speakerId: string): SpeakerEntry {
  const ids = (field: keyof typeof SPEAKER_ACTIONS) => ({
    block: speakerBlock[field](speakerId),
    action: SPEAKER_ACTIONS[field],
  });
  const entry: SpeakerEntry = { speakerId };
  const userId = stateOf(state, ids("user"))?.selected_user;
  if (typeof userId === "string" && userId !== "") entry.userId = userId;
  const name = cleanName(textOf(state, ids("name")) ?? "");
  if (name !== "") entry.name = name;
  const gender = optionOf(state, ids("gender"));
  if (gender === "male" || gender === "female") entry.gender = gender;
  return entry;
}
