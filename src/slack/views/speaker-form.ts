import { z } from "zod";
import type { Job, SpeakerSummary } from "../../jobs/index.ts";
import type { SpeakerName } from "../../notetaker/index.ts";
import { optional } from "../../util/optional.ts";
import { INPUTS, SPEAKER_ACTIONS, speakerBlock } from "../ids.ts";
import { LOCALES, type Locale, t } from "../messages/catalog.ts";
import { hasControlChars } from "../text/neutralize-mentions.ts";
import { speakerLabel } from "./job-phrases.ts";
import { MAX_NAME_CHARS } from "./limits.ts";
import { checkName, cleanName } from "./name-rules.ts";
import {
  fileOf,
  optionOf,
  readStateValues,
  type StateValues,
  stateOf,
  textOf,
} from "./state-values.ts";

/**
 * What the speaker modal shows and gives back for one speaker; kept in the store between pages.
 * A typed name wins over the member's name.
 */
export const speakerEntrySchema = z.object({
  speakerId: z.string(),
  userId: z.string().optional(),
  name: z.string().optional(),
  gender: z.enum(["male", "female"]).optional(),
});
export type SpeakerEntry = z.infer<typeof speakerEntrySchema>;
export type SpeakerPrefill = Omit<SpeakerEntry, "speakerId">;
export type NamedSpeaker = Pick<SpeakerEntry, "gender"> & { name: string };

export function speakersOf(job: Job): SpeakerSummary[] {
  if (job.stage === "naming") return job.speakers;
  if ("note" in job) return job.note.speakers;
  return [];
}

/**
 * The caller's prefill, then the note's, then the hints. Regenerate reopens with the same
 * choices: a member comes back picked (not as the typed name) and an unnamed speaker empty.
 */
export function prefillFor(
  job: Job,
  speakerId: string,
  given: Record<string, SpeakerPrefill> | undefined,
): SpeakerPrefill {
  const explicit = given?.[speakerId];
  if (explicit !== undefined) return explicit;
  if ("note" in job) return notePrefill(job.note, speakerId) ?? hintPrefill(job, speakerId);
  return hintPrefill(job, speakerId);
}

function notePrefill(
  note: { speakerMap: readonly SpeakerName[]; members?: Record<string, string> | undefined },
  speakerId: string,
): SpeakerPrefill | undefined {
  const mapped = note.speakerMap.find((e) => e.speakerId === speakerId);
  if (mapped === undefined) return undefined;
  const prefill: SpeakerPrefill = {};
  if (mapped.gender === "male" || mapped.gender === "female") prefill.gender = mapped.gender;
  const member = note.members?.[speakerId];
  if (member !== undefined) return { ...prefill, userId: member };
  const name = mapped.name.trim();
  if (!isNeutralLabel(speakerId, name)) prefill.name = name;
  return prefill;
}

/** The service labels a speaker with a hinted name when it recognised them. */
function hintPrefill(job: Job, speakerId: string): SpeakerPrefill {
  const hinted = job.options.speakers?.find((hint) => hint.name.trim() === speakerId);
  if (hinted === undefined) return {};
  const prefill: SpeakerPrefill = { name: hinted.name.trim() };
  if (hinted.gender === "male" || hinted.gender === "female") prefill.gender = hinted.gender;
  return prefill;
}

/** The label an unnamed `speaker_N` is given in the note ("Speaker 2"), in any language. */
function isNeutralLabel(speakerId: string, name: string): boolean {
  if (!/^speaker[ _-]?\d+$/i.test(speakerId)) return false;
  return LOCALES.some((locale) => speakerLabel(speakerId, locale) === name);
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
  return {
    ok: true,
    entries,
    ...optional("contextText", contextText),
    ...optional("templateFileId", fileOf(state, INPUTS.template)),
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
  return { entries, ...optional("contextText", textOf(state, INPUTS.context)) };
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

/**
 * Every speaker of the job, in order; an unnamed one gets a neutral label in the person's language
 * ("Speaker 3"). Two may share a name, as diarization over-splits.
 */
export function speakerMapFor(
  job: Job,
  named: ReadonlyMap<string, NamedSpeaker>,
  locale: Locale,
): SpeakerName[] {
  return speakersOf(job).map(({ speakerId }) => {
    const given = named.get(speakerId);
    if (given === undefined) return { speakerId, name: speakerLabel(speakerId, locale) };
    return { speakerId, name: given.name, ...optional("gender", given.gender) };
  });
}
