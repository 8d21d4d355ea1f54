import type { Root } from "mdast";
import type { Options } from "mdast-util-to-markdown";
import { toCanvasTree } from "./canvas-tree.ts";
import { markdownLib } from "./markdown-lib.ts";
import { mentionableIds, type Person } from "./mention-people.ts";
import { FULLWIDTH_EXCLAMATION, neutralizeMentions } from "./neutralize-mentions.ts";
import { type NotePiece, parseNote } from "./parse-note.ts";
import { showLinkTargets } from "./show-link-targets.ts";

/** "The markdown content is limited to 1 MiB (1,048,576 characters)" (canvases.create docs). */
export const CANVAS_MAX_CHARS = 1_048_576;

/** Made on first use, as the writer's GFM extension loads the Markdown library. */
let writeOptions: Options | undefined;

const IMAGE_MARK = /!\[(\]\(@([A-Z0-9]+)\))?/g;

/**
 * A note as a canvas takes it (docs.slack.dev canvases.create), nothing dropped and nothing a
 * reader could not see; a chunk the parser could not read safely is plain text.
 */
export function toCanvasMarkdown(markdown: string, people: readonly Person[]): string {
  const source = neutralizeMentions(showLinkTargets(markdown));
  const parts = parseNote(source)
    .map((piece) => writePiece(piece, people))
    .filter((part) => part !== "");
  return onlyMentionsOf(parts.length === 0 ? "" : `${parts.join("\n\n")}\n`, people);
}

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
  if (tree.children.length === 0) return "";
  // `[text](url)` links, as canvases document; `-` bullets, as checklists are `- [ ]`.
  writeOptions ??= {
    extensions: [markdownLib().gfmToMarkdown({ tablePipeAlign: false })],
    bullet: "-",
    rule: "-",
    fences: true,
    listItemIndent: "one",
    resourceLink: true,
  };
  return markdownLib().toMarkdown(tree, writeOptions).replace(/\n+$/, "");
}

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

/** The last word on images: a `![` that is not the mention of one of `people` loses its `!`. */
function onlyMentionsOf(markdown: string, people: readonly Person[]): string {
  if (!markdown.includes("![")) return markdown;
  const allowed = mentionableIds(people);
  return markdown.replace(
    IMAGE_MARK,
    (mark, tail: string | undefined, userId: string | undefined) =>
      tail !== undefined && userId !== undefined && allowed.has(userId)
        ? mark
        : `${FULLWIDTH_EXCLAMATION}[${tail ?? ""}`,
  );
}
