import type { Job } from "../../jobs/index.ts";
import type { SpeakerName } from "../../notetaker/index.ts";
import { optional } from "../../util/optional.ts";
import type { Locale } from "../messages/catalog.ts";
import { speakerLabel } from "./job-phrases.ts";
import type { Gender } from "./speaker-modal.ts";
import { speakersOf } from "./speaker-modal.ts";

export interface NamedSpeaker {
  name: string;
  gender?: Gender;
}

/**
 * Every speaker of the job, in order; one left unnamed gets a neutral label in the person's
 * language ("Speaker 3"), never the bare label nor someone else's name. Two may share a name:
 * diarization over-splits.
 */
export function speakerMapFor(
  job: Job,
  named: ReadonlyMap<string, NamedSpeaker>,
  locale: Locale,
): SpeakerName[] {
  return speakersOf(job).map(({ speakerId }) => {
    const given = named.get(speakerId);
    if (given === undefined) return { speakerId, name: speakerLabel(speakerId, locale) };
    return {
      speakerId,
      name: given.name,
      ...optional("gender", given.gender),
    };
  });
}
