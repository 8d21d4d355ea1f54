import { writeFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { blocksText } from "./block-text.ts";
import type { Say } from "./slack-watch.ts";
import { type StandIn, WORKSPACE } from "./stand-in.ts";

/** What the bot delivered for one recording, as saved on disk. */
export interface SavedResults {
  /** The note's first lines as posted in the thread ([] when no part arrived). */
  noteLines: string[];
  /** The DOCX the bot uploaded, saved; undefined when none arrived. */
  docx: string | undefined;
  /** Every file saved (DOCX, transcripts, the canvas's Markdown). */
  files: string[];
}

const NOTE_LINES = 8;

/**
 * Prints the note's first lines from the thread, saves every file the bot uploaded into the
 * thread (the DOCX, the transcript and its subtitles) and the canvas's Markdown into `dir`,
 * and prints where each went.
 */
export async function saveResults(
  standIn: StandIn,
  o: { recording: string; threadTs: string; dir: string; say: Say },
): Promise<SavedResults> {
  const { fake } = standIn;
  const thread = fake.thread(WORKSPACE.channel.id, o.threadTs);
  const parts = thread.filter((m) => m.metadata?.event_payload.kind === "note_part");
  const noteLines = parts
    .flatMap((m) => blocksText(m.blocks ?? []))
    .filter((line) => line.trim() !== "")
    .slice(0, NOTE_LINES);
  o.say("");
  o.say(`The note of ${o.recording}, its first lines as posted in the thread:`);
  for (const line of noteLines) o.say(`  | ${line}`);
  const files: string[] = [];
  let docx: string | undefined;
  o.say(`Saved in ${o.dir}:`);
  for (const upload of fake.uploads) {
    if (upload.thread_ts !== o.threadTs || !upload.completed || upload.data === undefined) continue;
    const path = join(o.dir, basename(upload.filename));
    await writeFile(path, upload.data);
    files.push(path);
    const kind = KINDS[extname(path)] ?? "file";
    if (kind === "DOCX") docx = path;
    o.say(`  ${kind.padEnd(11)} ${path} (${kb(upload.data.length)})`);
  }
  const canvas = [...fake.canvases.values()].find((c) => c.title.startsWith(`${o.recording} · `));
  if (canvas !== undefined) {
    const path = join(o.dir, `${basename(o.recording, extname(o.recording))} - canvas${MARKDOWN}`);
    await writeFile(path, canvas.markdown);
    files.push(path);
    const readers =
      canvas.channels.get(WORKSPACE.channel.id) === undefined
        ? ""
        : `, #${WORKSPACE.channel.name} may read it`;
    o.say(`  ${"canvas".padEnd(11)} ${path}: "${canvas.title}"${readers}`);
  }
  return { noteLines, docx, files };
}

/** The canvas is saved as the Markdown the bot wrote it in. */
const MARKDOWN = ".md";
const KINDS: Record<string, string> = {
  ".docx": "DOCX",
  ".txt": "transcript",
  ".vtt": "subtitles",
};

function kb(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`;
}
