import type { Nodes, Root } from "mdast";
import { parseGfm } from "./markdown-lib.ts";

/*
 * micromark is not linear on hostile input and deep nesting overflows the stack, so an untrusted
 * note is cut where CommonMark closes every block and a chunk is parsed only while its estimated
 * work stays small; the rest stays text.
 */

export interface NotePiece {
  text: string;
  tree: Root | undefined;
}

/** Bound on one parse's estimated work that grows faster than its length. */
const MAX_CHUNK_WORK = 500_000_000;
/** Chunks are parsed together up to this much (fewer calls, each with a fixed cost). */
const GROUP_WORK = 30_000_000;
/** The note may cost what an ordinary note of its length costs, not the square of it. */
const NOTE_WORK_PER_CHAR = 5_000;
const MIN_NOTE_WORK = 200_000_000;
/** What the parser spends on each non-blank line, whatever it holds. */
const LINE_WORK = 100_000;
/** Containers on one line, and `[` open at once in a paragraph. */
const MAX_NESTING = 32;
/** The serialiser's cost grows with depth times length. */
const MAX_TREE_DEPTH = 48;
const OPENED_BLOCK_WEIGHT = 1 / 16;

/** A line that always starts a new block. */
const BLOCK_START = /^ {0,3}(?:#{1,6}(?:[ \t]|$)|[-*+][ \t]+\S|1[.)][ \t]+\S|```|~~~)/;
const CONTAINER = /[ \t]*(?:(>)|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))/y;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t\r]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t\r]*$/;
const BLANK = /^[ \t\r]*$/;
const MARK_CODES = new Set([..."!&*<>[\\]_`~()|"].map((char) => char.charCodeAt(0)));
const BACKSLASH = 92;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** GFM included; a chunk the parser could take long over, or too deep to write back, stays text. */
export function parseNote(markdown: string): NotePiece[] {
  const pieces: NotePiece[] = [];
  let group: { lines: string[]; cost: Cost } | undefined;
  const budget = Math.max(MIN_NOTE_WORK, NOTE_WORK_PER_CHAR * markdown.length);
  let total = 0;
  const flush = () => {
    if (group === undefined) return;
    const text = group.lines.join("\n");
    total += work(group.cost) + group.cost.lines * LINE_WORK;
    pieces.push(total > budget ? { text, tree: undefined } : parsed(text));
    group = undefined;
  };
  for (const lines of splitChunks(markdown)) {
    const cost = estimateCost(lines);
    if (cost === undefined || work(cost) > MAX_CHUNK_WORK) {
      flush();
      pieces.push({ text: lines.join("\n"), tree: undefined });
      continue;
    }
    const joined = group === undefined ? cost : addCosts(group.cost, cost);
    if (group !== undefined && work(joined) <= GROUP_WORK) {
      for (const line of lines) group.lines.push(line);
      group.cost = joined;
    } else {
      flush();
      group = { lines, cost };
    }
  }
  flush();
  return pieces;
}

function parsed(text: string): NotePiece {
  const tree = parseGfm(text);
  return { text, tree: treeDepth(tree) > MAX_TREE_DEPTH ? undefined : tree };
}

/**
 * Cut before a line at the margin after a blank line, outside a fenced block: there CommonMark
 * has closed every block, so each chunk reads alone as in the note.
 */
function splitChunks(markdown: string): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let fence: { char: string; length: number } | undefined;
  let afterBlank = false;
  for (const line of markdown.split("\n")) {
    if (fence === undefined && afterBlank && current.length > 0 && /^[^ \t\r]/.test(line)) {
      chunks.push(current);
      current = [];
    }
    current.push(line);
    if (fence === undefined) {
      const open = FENCE_OPEN.exec(line);
      const marker = open?.[1] ?? "";
      // A backtick fence's info string has no backtick, or it is not a fence.
      if (open !== null && !(marker.startsWith("`") && (open[2] ?? "").includes("`"))) {
        fence = { char: marker.charAt(0), length: marker.length };
      }
    } else {
      const marker = FENCE_CLOSE.exec(line)?.[1] ?? "";
      if (marker.startsWith(fence.char) && marker.length >= fence.length) fence = undefined;
    }
    afterBlank = fence === undefined && BLANK.test(line);
  }
  chunks.push(current);
  return chunks;
}

interface Cost {
  inline: number;
  opened: number;
  length: number;
  lines: number;
}

/** In units of about a nanosecond; errs upwards. */
function work(cost: Cost): number {
  return cost.inline + cost.opened * cost.opened * cost.length * OPENED_BLOCK_WEIGHT;
}

function addCosts(a: Cost, b: Cost): Cost {
  return {
    inline: a.inline + b.inline,
    opened: a.opened + b.opened,
    length: a.length + b.length,
    lines: a.lines + b.lines,
  };
}

/** Undefined when nesting is too deep; inline work is counted on runs of a paragraph or more. */
function estimateCost(lines: readonly string[]): Cost | undefined {
  const cost: Cost = { inline: 0, opened: 0, length: 0, lines: 0 };
  let chars = 0;
  let marks = 0;
  let runLines = 0;
  let brackets = 0;
  let previous: Containers = { quote: false, listColumn: undefined, opened: false };
  let previousBlank = true;
  for (const line of lines) {
    const blank = BLANK.test(line);
    if (blank || BLOCK_START.test(line)) {
      cost.inline += (marks + runLines) * chars;
      chars = marks = runLines = brackets = 0;
    }
    // A blank line leaves the containers as they were: what follows tells.
    const containers = blank ? { ...previous, opened: false } : containersOf(line, previous);
    if (containers === undefined) return undefined;
    if (containers.opened || (!previousBlank && SETEXT_UNDERLINE.test(line))) cost.opened++;
    for (let i = 0; i < line.length; i++) {
      const code = line.charCodeAt(i);
      if (!MARK_CODES.has(code)) continue;
      marks++;
      if (i > 0 && line.charCodeAt(i - 1) === BACKSLASH) continue;
      if (code === OPEN_BRACKET && ++brackets > MAX_NESTING) return undefined;
      if (code === CLOSE_BRACKET && brackets > 0) brackets--;
    }
    chars += line.length + 1;
    cost.length += line.length + 1;
    if (!blank) cost.lines++;
    runLines++;
    previous = containers;
    previousBlank = blank;
  }
  cost.inline += (marks + runLines) * chars;
  return cost;
}

interface Containers {
  quote: boolean;
  listColumn: number | undefined;
  opened: boolean;
}

/** Judged from markers and indentation; undefined when it may be over MAX_NESTING deep. */
function containersOf(line: string, previous: Containers): Containers | undefined {
  const indentation = /^[ \t]*/.exec(line.slice(0, 2 * MAX_NESTING + 2))?.[0] ?? "";
  const columns = indentation.replace(/\t/g, "    ").length;
  let count = Math.floor(columns / 2);
  let quote = false;
  let listColumn: number | undefined;
  let quoteInItem = false;
  CONTAINER.lastIndex = 0;
  for (let match = CONTAINER.exec(line); match !== null; match = CONTAINER.exec(line)) {
    if (++count > MAX_NESTING) return undefined;
    if (match[1] === ">") {
      quoteInItem ||= listColumn !== undefined;
      quote = true;
    } else {
      listColumn ??= match.index + (match[0].length - match[0].trimStart().length);
    }
  }
  const openedQuote = quote && (!previous.quote || quoteInItem);
  const openedList = listColumn !== undefined && listColumn !== previous.listColumn;
  // A line indented into the item above stays in its list; anything else ends it.
  const stillInList =
    listColumn === undefined &&
    previous.listColumn !== undefined &&
    columns >= previous.listColumn + 2;
  return {
    quote,
    listColumn: listColumn ?? (stillInList ? previous.listColumn : undefined),
    opened: openedQuote || openedList,
  };
}

function treeDepth(root: Root): number {
  let deepest = 0;
  const stack: Array<{ node: Nodes; depth: number }> = [{ node: root, depth: 0 }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    deepest = Math.max(deepest, entry.depth);
    if (!("children" in entry.node)) continue;
    for (const child of entry.node.children) stack.push({ node: child, depth: entry.depth + 1 });
  }
  return deepest;
}
