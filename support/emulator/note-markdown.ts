import type { DialogEntry, SpeakerMap } from "./schemas.ts";

export interface NoteInput {
  dialog: readonly DialogEntry[];
  speakerMap?: SpeakerMap | undefined;
  contextText?: string | undefined;
  /** Size of the uploaded template; the emulator only mentions it, it does not fill it. */
  templateBytes?: number | undefined;
  /** Pad with `## Topic N` sections until the Markdown is at least this long. */
  minChars?: number | undefined;
}

const TOPIC_PARAGRAPHS = [
  "The group reviewed where the work stands and which parts are still open. Progress since the last meeting was steady, and nobody reported a blocker that the team could not handle on its own.",
  "Several options were compared on cost, risk and the time they would take. The discussion favoured the option that keeps the current schedule, with a fallback if the supplier cannot confirm in time.",
  "Participants agreed that the customer-facing documentation has to be ready before any announcement, and that support should get a short briefing one day ahead so questions can be answered consistently.",
  "Open questions were collected so they can be answered by email instead of waiting for the next meeting. Owners were named for each question and asked to reply in the shared channel.",
];

/**
 * Builds the Markdown meeting note from a dialog: title, attendees, context, one Discussion
 * bullet per segment with the mapped speaker name, then decisions and action items.
 */
export function buildNoteMarkdown(input: NoteInput): string {
  const nameOf = speakerNamer(input.speakerMap);
  const speakerIds = [...new Set(input.dialog.map((entry) => entry.speaker_id))];
  const attendees = speakerIds.map(nameOf);

  const head: string[] = ["# Meeting notes", ""];
  if (input.templateBytes !== undefined) {
    head.push(`_Written with the uploaded template (${input.templateBytes} bytes)._`, "");
  }
  head.push("## Attendees", "");
  head.push(...(attendees.length > 0 ? attendees.map((name) => `- ${name}`) : ["- (none)"]), "");
  const context = input.contextText?.trim();
  if (context) head.push("## Context", "", context, "");
  head.push("## Discussion", "");
  for (const entry of input.dialog) {
    head.push(`- **${nameOf(entry.speaker_id)}** (${clock(entry.start_seconds)}): ${entry.text}`);
  }
  head.push("");

  const tail = ["## Decisions", "", ...decisions(input.dialog), ""];
  tail.push("## Action items", "", ...actionItems(input.dialog, speakerIds, nameOf));

  const headText = `${head.join("\n")}\n`;
  const tailText = `${tail.join("\n")}\n`;
  const topics: string[] = [];
  let length = headText.length + tailText.length;
  while (length < (input.minChars ?? 0)) {
    const topic = topicSection(topics.length + 1);
    topics.push(topic);
    length += topic.length;
  }
  return headText + topics.join("") + tailText;
}

/** Resolves a speaker id through the array or legacy map, falling back to the id itself. */
function speakerNamer(map: SpeakerMap | undefined): (id: string) => string {
  if (map === undefined) return (id) => id;
  if (Array.isArray(map)) {
    const names = new Map(map.map((entry) => [entry.speaker_id, entry.name]));
    return (id) => names.get(id) ?? id;
  }
  return (id) => (Object.hasOwn(map, id) ? (map[id] ?? id) : id);
}

function decisions(dialog: readonly DialogEntry[]): string[] {
  const picked = dialog.filter((_, index) => index % 3 === 1).slice(0, 3);
  if (picked.length === 0) return ["- No decisions were recorded."];
  return picked.map((entry) => `- Agreed at ${clock(entry.start_seconds)}: ${shorten(entry.text)}`);
}

function actionItems(
  dialog: readonly DialogEntry[],
  speakerIds: readonly string[],
  nameOf: (id: string) => string,
): string[] {
  if (speakerIds.length === 0) return ["- No action items were recorded."];
  return speakerIds.map((id) => {
    const said = dialog.find((entry) => entry.speaker_id === id)?.text ?? "";
    return `- [ ] **${nameOf(id)}**: follow up on "${shorten(said)}" before the next meeting.`;
  });
}

function topicSection(number: number): string {
  const paragraphs = TOPIC_PARAGRAPHS.map(
    (text, index) => `${text} (Topic ${number}, point ${index + 1}.)`,
  );
  return `## Topic ${number}\n\n${paragraphs.join("\n\n")}\n\n`;
}

/** Seconds as `mm:ss`; minutes keep counting past 59 so long meetings still sort. */
function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const minutes = Math.floor(whole / 60);
  return `${String(minutes).padStart(2, "0")}:${String(whole % 60).padStart(2, "0")}`;
}

function shorten(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 80 ? `${trimmed.slice(0, 77)}...` : trimmed;
}
