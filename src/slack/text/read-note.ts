import type { Nodes, Root } from "mdast";
import { definitionsOf, markdownLib, nodesOf, parseGfm } from "./markdown-lib.ts";
import { parseNote } from "./parse-note.ts";

/** A chunk of the note (parse-note.ts): its text, where it starts, and its trees if parsed. */
export interface NoteChunk {
  text: string;
  start: number;
  /** The chunk as CommonMark reads it, every reference of the note resolved. */
  tree: Root | undefined;
  /** The chunk as CommonMark + GFM reads it (tables, bare URLs, footnotes…). */
  gfmTree: Root | undefined;
}

/** The note's chunks, and its link reference definitions: identifier → destination. */
export interface NoteReading {
  chunks: NoteChunk[];
  definitions: Map<string, string>;
}

/**
 * A bracketed run that could be a reference's label (a label holds no unescaped bracket), or
 * a backslash escape, matched so that an escaped bracket starts no label.
 */
export const LABEL = /\\[\s\S]|\[((?:\\[\s\S]|[^\\[\]]){1,999})\]/g;

/**
 * The note read both ways Slack's `markdown` block may read it: CommonMark + GFM, and CommonMark
 * alone, where GFM's bare URLs and tables no longer swallow a link's brackets. `given`
 * definitions let a rewrite of the note keep the original's.
 */
export function readNote(markdown: string, given?: Map<string, string>): NoteReading {
  let start = 0;
  const chunks = parseNote(markdown).map(({ text, tree }) => {
    const gfmOnly = tree !== undefined && readsAsGfmOnly(text, tree, markdown.includes("]:"));
    const commonMark = gfmOnly ? markdownLib().fromMarkdown(text) : tree;
    const chunk = { text, start, gfmTree: tree, tree: commonMark };
    start += text.length + 1;
    return chunk;
  });
  // In document order: CommonMark's, then those only GFM reads (in the text of a footnote).
  const definitions =
    given ?? definitionsOf([...chunks.map((c) => c.tree), ...chunks.map((c) => c.gfmTree)]);
  return { chunks: chunks.map((chunk) => withDefinitions(chunk, definitions)), definitions };
}

/**
 * Whether a GFM tree holds what CommonMark alone may read as other links: a footnote, a
 * table or a strikethrough or a bare URL over a bracket, a task box where labels are
 * defined. Without them both readings find the same links, and one parse does.
 */
function readsAsGfmOnly(text: string, tree: Root, defines: boolean): boolean {
  for (const node of nodesOf(tree)) {
    const start = node.position?.start.offset ?? 0;
    const holdsBracket = () => /[[\]]/.test(text.slice(start, node.position?.end.offset));
    switch (node.type) {
      case "footnoteDefinition":
      case "footnoteReference":
        return true;
      case "table":
      case "delete":
        if (holdsBracket()) return true;
        break;
      case "link":
        if (text[start] !== "[" && text[start] !== "<" && holdsBracket()) return true;
        break;
      case "listItem":
        if (typeof node.checked === "boolean" && defines) return true;
        break;
    }
  }
  return false;
}

/**
 * The nodes of a chunk's tree that stand in its own text, with their spans in it: past the text
 * are the definitions appended to it (`withDefinitions`). `skip` as in `nodesOf`.
 */
export function* nodesIn(
  text: string,
  tree: Nodes | undefined,
  skip?: ReadonlySet<string>,
): Generator<{ node: Nodes; start: number; end: number }> {
  for (const node of tree === undefined ? [] : nodesOf(tree, skip)) {
    const start = node.position?.start.offset ?? text.length;
    const end = Math.min(node.position?.end.offset ?? start, text.length);
    if (start < text.length) yield { node, start, end };
  }
}

/** A label as mdast identifies it: white space collapsed, case folded. */
export function identifierOf(label: string): string {
  return label
    .replace(/[\t\n\r ]+/g, " ")
    .trim()
    .toLowerCase()
    .toUpperCase()
    .toLowerCase();
}

/**
 * Each chunk is parsed alone, so one using a label defined elsewhere is parsed again with the
 * definition appended; that is at most the chunk's length, so the parse stays as cheap.
 */
function withDefinitions(chunk: NoteChunk, definitions: Map<string, string>): NoteChunk {
  if (chunk.tree === undefined || definitions.size === 0) return chunk;
  const labels = new Map<string, string>();
  for (const [match, label] of chunk.text.matchAll(LABEL)) {
    if (label === undefined || match.startsWith("\\")) continue;
    const identifier = identifierOf(label);
    if (definitions.has(identifier)) labels.set(identifier, label);
  }
  if (labels.size === 0) return chunk;
  const text = chunk.text + [...labels.values()].map((label) => `\n\n[${label}]: x`).join("");
  return { ...chunk, tree: markdownLib().fromMarkdown(text), gfmTree: parseGfm(text) };
}
