import type { Root } from "mdast";
import type { Options } from "mdast-util-to-markdown";
import { SLACK_USER_ID } from "../../jobs/index.ts";
import { toCanvasTree } from "./canvas-tree.ts";
import { markdownLib } from "./markdown-lib.ts";
import type { Person } from "./mention-people.ts";
import { neutralizeMentions } from "./neutralize-mentions.ts";
import { type NotePiece, parseNote } from "./parse-note.ts";
import { showLinkTargets } from "./show-link-targets.ts";

/** "The markdown content is limited to 1 MiB (1,048,576 characters)" (canvases.create docs). */
export const CANVAS_MAX_CHARS = 1_048_576;

/**
 * How the tree is written back. Links keep the `[text](url)` form canvases document
 * ("link (in line)"); lists use `-`, as checklists are `- [ ]`; tables are not padded.
 * The writer escapes what would otherwise read as markup (`2 \* 3`, `Q\&A`), so the text
 * reads back as the same text.
 */
let WRITE_OPTIONS: Options | undefined;
function writeOptions(): Options {
  WRITE_OPTIONS ??= {
    extensions: [markdownLib().gfmToMarkdown({ tablePipeAlign: false })],
    bullet: "-",
    rule: "-",
    fences: true,
    listItemIndent: "one",
    resourceLink: true,
  };
  return WRITE_OPTIONS;
}

/** A `![` and, when it is a user mention, the user. */
const IMAGE_MARK = /!\[(\]\(@([A-Z0-9]+)\))?/g;
const FULLWIDTH_EXCLAMATION = "\uFF01"; // ！

/**
 * A note's Markdown as a canvas takes it (docs.slack.dev canvases.create: headings h1–h3,
 * lists, checklists, quotes, code, tables, links, `![](@U…)` user mentions…), nothing
 * dropped, nothing a reader could not see:
 * - links show their targets as in the thread: `showLinkTargets` rewrites the note first,
 *   and any link a CommonMark reading still finds is shown by the same rule;
 * - the note is then parsed (CommonMark + GFM, parse-note.ts) and written back from its
 *   tree (canvas-tree.ts): no image, no reference definition, no raw HTML is left, deeper
 *   headings become bold lines, code stays code;
 * - the service's own Slack mentions are neutralised, and only `people` are mentioned.
 *
 * The note is parsed in chunks; a chunk the parser could not read quickly or safely
 * (parse-note.ts) is written as plain text, one paragraph a line. Either way the result
 * holds `![` only in the mentions of `people`, whatever a reader makes of escapes or code
 * fences.
 */
export function toCanvasMarkdown(markdown: string, people: readonly Person[]): string {
  const source = neutralizeMentions(showLinkTargets(markdown));
  const parts = parseNote(source)
    .map((piece) => writePiece(piece, people))
    .filter((part) => part !== "");
  return onlyMentionsOf(parts.length === 0 ? "" : `${parts.join("\n\n")}\n`, people);
}

/** A chunk written back from its tree, or as plain text when it has none. */
function writePiece(piece: NotePiece, people: readonly Person[]): string {
  if (piece.tree !== undefined) {
    try {
      return write(toCanvasTree(piece.tree, people));
    } catch (error) {
      // A tree deeper than the stack: its plain text still makes a canvas.
      if (!(error instanceof RangeError)) throw error;
    }
  }
  return write(toCanvasTree(plainTree(piece.text), people));
}

function write(tree: Root): string {
  return tree.children.length === 0
    ? ""
    : markdownLib().toMarkdown(tree, writeOptions()).replace(/\n+$/, "");
}

/** The note as text, one paragraph a line: what it says, none of its markup read. */
function plainTree(source: string): Root {
  return {
    type: "root",
    children: source
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "")
      .map((line) => ({ type: "paragraph", children: [{ type: "text", value: line }] })),
  };
}

/**
 * The last word on images: every `![` that does not start the mention of one of `people`
 * loses its `!`. The tree holds no other image and its text no `![`, so this changes
 * nothing unless the writer itself made one.
 */
function onlyMentionsOf(markdown: string, people: readonly Person[]): string {
  if (!markdown.includes("![")) return markdown;
  const allowed = new Set(
    people.map((person) => person.userId).filter((id) => SLACK_USER_ID.test(id)),
  );
  return markdown.replace(
    IMAGE_MARK,
    (mark, tail: string | undefined, userId: string | undefined) =>
      tail !== undefined && userId !== undefined && allowed.has(userId)
        ? mark
        : `${FULLWIDTH_EXCLAMATION}[${tail ?? ""}`,
  );
}
