import type { Job } from "../../jobs/index.ts";
import type { SpeakerName } from "../../notetaker/index.ts";
import { LOCALES } from "../messages/catalog.ts";
import { speakerLabel } from "./job-phrases.ts";

export type Gender = "male" | "female";

export interface SpeakerPrefill {
  name?: string;
  userId?: string;
  gender?: Gender;
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
