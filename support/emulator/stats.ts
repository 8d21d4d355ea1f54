import type { IncomingMessage } from "node:http";
import type { DialogEntry, SpeakerHint, SpeakerMap } from "./schemas.ts";

/** One accepted `POST /audio2dialog`. The audio itself is not kept, only its size and hash. */
export interface AudioSubmission {
  taskId: string;
  filename: string;
  contentType: string;
  bytes: number;
  sha256: string;
  speakers: SpeakerHint[] | undefined;
  contextText: string | undefined;
  languageHint: string | undefined;
  /** With the `keepAudioIn` knob: where the recording was kept. */
  keptPath?: string;
}

/** One accepted `POST /dialog2meeting`. */
export interface NoteSubmission {
  taskId: string;
  dialog: DialogEntry[];
  /** As received (array or legacy object), parsed from JSON. */
  speakerMap: SpeakerMap | undefined;
  contextText: string | undefined;
  templateBytes?: number;
}

/** One request seen by either origin (control routes excluded). */
export interface RequestLogEntry {
  origin: "api" | "result";
  method: string;
  /** Path with query string. */
  path: string;
  /** Every header, names lowercased, repeated values joined with `, `. */
  headers: Record<string, string>;
}

export interface EmulatorStats {
  audioSubmissions: AudioSubmission[];
  noteSubmissions: NoteSubmission[];
  polls: { audio: number; note: number };
  requests: RequestLogEntry[];
}

/** Returns empty stats. */
export function createStats(): EmulatorStats {
  return { audioSubmissions: [], noteSubmissions: [], polls: { audio: 0, note: 0 }, requests: [] };
}

/** Empties the stats in place, so references held by tests stay live. */
export function resetStats(stats: EmulatorStats): void {
  stats.audioSubmissions.length = 0;
  stats.noteSubmissions.length = 0;
  stats.polls.audio = 0;
  stats.polls.note = 0;
  stats.requests.length = 0;
}

/** Keeps a long-running `npm run emulator` bounded; tests never get near it. */
const MAX_LOGGED_REQUESTS = 10_000;

/** Appends a request to the log with all of its headers, dropping the oldest past the cap. */
export function logRequest(
  stats: EmulatorStats,
  origin: RequestLogEntry["origin"],
  req: IncomingMessage,
): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headersDistinct)) {
    if (value !== undefined) headers[name.toLowerCase()] = value.join(", ");
  }
  stats.requests.push({ origin, method: req.method ?? "GET", path: req.url ?? "/", headers });
  if (stats.requests.length > MAX_LOGGED_REQUESTS) stats.requests.shift();
}
