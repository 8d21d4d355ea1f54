import type { Segment, SpeakerName } from "../../notetaker/index.ts";
import { stripInvisibleChars } from "../../text/index.ts";
import type { Locale } from "../messages/catalog.ts";
import { stripUnsafeChars } from "../text/neutralize-mentions.ts";
import { speakerLabel } from "./job-phrases.ts";

export interface TranscriptFile {
  extension: "txt" | "vtt";
  content: string;
}

/**
 * `.txt` for reading and WebVTT for players; a speaker not in the map (naming skipped) gets the
 * neutral label. Control, invisible and bidi characters are taken out of the service's text.
 */
export function buildTranscript(
  segments: readonly Segment[],
  speakerMap: readonly SpeakerName[],
  locale: Locale,
): TranscriptFile[] {
  const names = new Map(speakerMap.map((entry) => [entry.speakerId, clean(entry.name)]));
  const nameOf = (id: string) => names.get(id) || speakerLabel(id, locale);
  const turns = segments
    .map((entry) => ({
      start: Math.max(0, entry.startSeconds),
      end: Math.max(entry.startSeconds, entry.endSeconds),
      name: nameOf(entry.speakerId),
      text: clean(entry.text),
    }))
    .filter((turn) => turn.text !== "");
  const txt = turns.map((t) => `[${clock(t.start)}] ${t.name}: ${t.text}`).join("\n");
  const vtt = [
    "WEBVTT",
    ...turns.map(
      (t) =>
        `${clock(t.start, true)} --> ${clock(t.end, true)}\n<v ${escapeVtt(t.name)}>${escapeVtt(t.text)}`,
    ),
  ].join("\n\n");
  return [
    { extension: "txt", content: `${txt}\n` },
    { extension: "vtt", content: `${vtt}\n` },
  ];
}

function clock(seconds: number, millis = false): string {
  const whole = Math.floor(seconds);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const hms = `${pad(Math.floor(whole / 3600))}:${pad(Math.floor((whole % 3600) / 60))}:${pad(whole % 60)}`;
  return millis ? `${hms}.${pad(Math.round((seconds - whole) * 1000) % 1000, 3)}` : hms;
}

function clean(text: string): string {
  return stripUnsafeChars(stripInvisibleChars(text)).replace(/\s+/g, " ").trim();
}

/** WebVTT cue text: `&`, `<` and `>` start markup; `-->` would end a cue's timing line. */
function escapeVtt(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
