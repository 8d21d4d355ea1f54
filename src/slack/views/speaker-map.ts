import type { Job } from "../../jobs/index.ts";
import type { SpeakerMapEntry } from "../../notetaker/index.ts";
import { optional } from "../../util/optional.ts";
import type { Locale } from "../messages/index.ts";
import { speakerLabel } from "./job-phrases.ts";
import type { Gender } from "./speaker-modal.ts";
import { speakersOf } from "./speaker-modal.ts";

/** A name given to one speaker in the modal. */
export interface NamedSpeaker {
  name: string;
  gender?: Gender;
}

/**
 * The speaker map sent to the Note Service: every speaker of the job, in order. A speaker
 * the person named gets that name (two may get the same one: diarization over-splits); one
 * left unnamed — or not shown in the modal, or all of them on Skip — gets a neutral label
 * in the person's language ("Speaker 3", "Người nói 3"), never `speaker_3` and never
 * someone else's name.
 */
export function speakerMapFor(
  job: Job,
  named: ReadonlyMap<string, NamedSpeaker>,
  locale: Locale,
): SpeakerMapEntry[] {
  return speakersOf(job).map(({ speakerId }) => {
    const given = named.get(speakerId);
    if (given === undefined)
      return { speaker_id: speakerId, name: speakerLabel(speakerId, locale) };
    return {
      speaker_id: speakerId,
      name: given.name,
      ...optional("gender", given.gender),
    };
  });
}
