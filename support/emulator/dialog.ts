import type { DialogEntry, SpeakerHint } from "./schemas.ts";

const LINES = [
  "Good morning everyone, let's go through the agenda for today.",
  "The first item is the release schedule for the mobile app.",
  "We are two days behind because the payment provider changed its sandbox.",
  "Can we ship the web version first and follow with mobile next week?",
  "That works for support, as long as the help pages are updated before launch.",
  "I will update the help pages by Thursday and share the draft in the channel.",
  "Next item: the budget for the customer research study.",
  "Finance approved twelve thousand for the quarter, so we can recruit twenty people.",
  "Let's split the interviews between the design team and the product team.",
  "I can schedule the first five interviews for next Monday.",
  "One risk is the data retention policy; legal needs to review the consent form.",
  "I'll send the consent form to legal today and ask for a reply by Friday.",
  "Any other business before we close?",
  "Just a reminder that the office is closed on the public holiday next month.",
  "Thanks everyone, I'll circulate the notes after the meeting.",
];

/** Length of one segment, and the pause before the next one, in seconds. */
const SEGMENT_SECONDS = 6.5;
const GAP_SECONDS = 0.75;

export interface DialogOptions {
  speakerCount: number;
  segmentsPerSpeaker: number;
  /** Replaces the text of the first segment. */
  firstText?: string | undefined;
  /** Hint names to use as labels instead of `speaker_N` (may be shorter than the speaker count). */
  labels?: readonly SpeakerHint[] | undefined;
}

/**
 * Builds a deterministic dialog: speakers take turns, timestamps only go up, and the text reads
 * like a real meeting so notes built from it look plausible.
 */
export function buildDialog(options: DialogOptions): DialogEntry[] {
  const total = options.speakerCount * options.segmentsPerSpeaker;
  const entries: DialogEntry[] = [];
  for (let index = 0; index < total; index++) {
    const speaker = index % options.speakerCount;
    const start = round2(index * (SEGMENT_SECONDS + GAP_SECONDS));
    const text =
      index === 0 && options.firstText !== undefined
        ? options.firstText
        : (LINES[index % LINES.length] ?? "");
    entries.push({
      speaker_id: options.labels?.[speaker]?.name ?? `speaker_${speaker + 1}`,
      start_seconds: start,
      end_seconds: round2(start + SEGMENT_SECONDS),
      text,
    });
  }
  return entries;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
