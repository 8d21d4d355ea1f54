import { type Dialog, type Segment, segmentsOf } from "../../notetaker/index.ts";
import type { SpeakerQuotes, SpeakerSummary } from "./job-parts.ts";

const QUOTE_CHARS = 140;
const QUOTES_PER_SPEAKER = 2;

/**
 * Each speaker's talk time and share, and two quotes (their
 * longest segments, in time order) to tell who a detected label is.
 */
export function summarizeSpeakers(dialog: Dialog): {
  speakers: SpeakerSummary[];
  quotes: SpeakerQuotes;
} {
  const bySpeaker = new Map<string, { seconds: number; segments: Segment[] }>();
  for (const entry of segmentsOf(dialog)) {
    const speaker = bySpeaker.get(entry.speakerId) ?? { seconds: 0, segments: [] };
    speaker.seconds += Math.max(0, entry.endSeconds - entry.startSeconds);
    speaker.segments.push(entry);
    bySpeaker.set(entry.speakerId, speaker);
  }
  const total = [...bySpeaker.values()].reduce((sum, s) => sum + s.seconds, 0);
  const speakers = [...bySpeaker].map(([speakerId, { seconds }]) => ({
    speakerId,
    seconds: round(seconds),
    share: total > 0 ? round(seconds / total, 3) : 1 / bySpeaker.size,
  }));
  const quotes: SpeakerQuotes = {};
  for (const [speakerId, { segments }] of bySpeaker) {
    quotes[speakerId] = segments
      .filter((s) => s.text.trim() !== "")
      .sort((a, b) => b.text.length - a.text.length)
      .slice(0, QUOTES_PER_SPEAKER)
      .sort((a, b) => a.startSeconds - b.startSeconds)
      .map((s) => ({ atSeconds: round(s.startSeconds), text: shorten(s.text.trim()) }));
  }
  return { speakers, quotes };
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length <= QUOTE_CHARS ? flat : `${flat.slice(0, QUOTE_CHARS - 1).trimEnd()}…`;
}

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
