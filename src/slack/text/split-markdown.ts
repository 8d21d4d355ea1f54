import { isHighSurrogate } from "./clamp-text.ts";

/** Headroom below Slack's 12,000 characters a message for whatever small additions a part gets. */
export const DEFAULT_PART_CHARS = 11_500;

const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const BLANK_LINES = /(?:[ \t]*\r?\n)+/y;
/** A user mention as `splitNote` writes one, and the start of one cut short. */
const MENTION = /^<@[UW][A-Z0-9]{2,}>/;
const MENTION_PREFIX = /^<@[UW]?[A-Z0-9]*$/;
const MAX_MENTION_CHARS = 40;

const CUT_LEVELS = ["heading", "paragraph", "line"] as const;
type Level = (typeof CUT_LEVELS)[number];
type Cuts = Record<Level, number[]>;

/**
 * A part ends before a heading, else at a paragraph break, a line break outside fenced code, or a
 * space; only whitespace at a cut is dropped, so the parts read as the original.
 */
export function splitMarkdown(markdown: string, options: { maxChars?: number } = {}): string[] {
  const maxChars = options.maxChars ?? DEFAULT_PART_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new RangeError(`maxChars must be a positive integer, not ${maxChars}`);
  }
  const cuts = findCuts(markdown);
  const parts: string[] = [];
  let start = skipBlankLines(markdown, 0);
  while (start < markdown.length) {
    const rest = markdown.slice(start).trimEnd();
    if (rest === "") break;
    if (rest.length <= maxChars) {
      parts.push(rest);
      break;
    }
    const end = chooseCut(markdown, cuts, start, maxChars);
    parts.push(markdown.slice(start, end).trimEnd());
    start = skipBlankLines(markdown, end);
  }
  return parts;
}

function findCuts(markdown: string): Cuts {
  const cuts: Cuts = { heading: [], paragraph: [], line: [] };
  let fence: string | undefined;
  let previousBlank = false;
  let position = 0;
  for (const line of markdown.split("\n")) {
    const blank = line.trim() === "";
    if (position > 0) {
      cuts.line.push(position);
      if (fence === undefined && HEADING.test(line)) cuts.heading.push(position);
      if (fence === undefined && previousBlank && !blank) cuts.paragraph.push(position);
    }
    fence = nextFence(line, fence);
    previousBlank = blank;
    position += line.length + 1;
  }
  return cuts;
}

function nextFence(line: string, open: string | undefined): string | undefined {
  const marker = FENCE.exec(line)?.[1];
  if (marker === undefined) return open;
  if (open === undefined) return marker;
  // A fence closes with the same character, at least as long, and nothing after it.
  const closes = marker[0] === open[0] && marker.length >= open.length;
  return closes && line.trim() === marker ? undefined : open;
}

function chooseCut(markdown: string, cuts: Cuts, start: number, maxChars: number): number {
  for (const level of CUT_LEVELS) {
    const cut = furthestFitting(markdown, cuts[level], start, maxChars);
    if (cut !== undefined) return cut;
  }
  return hardCut(markdown, start, maxChars);
}

function furthestFitting(
  markdown: string,
  positions: number[],
  start: number,
  maxChars: number,
): number | undefined {
  // The text before a cut loses its trailing whitespace, so a cut a little past the limit fits.
  const limit = start + maxChars + 16;
  let index = lastIndexAtMost(positions, limit);
  for (; index >= 0; index--) {
    const position = positions[index] ?? 0;
    if (position <= start) return undefined;
    const length = markdown.slice(start, position).trimEnd().length;
    if (length > 0 && length <= maxChars) return position;
  }
  return undefined;
}

/** Binary search: notes can have many lines. */
function lastIndexAtMost(positions: number[], limit: number): number {
  let low = 0;
  let high = positions.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((positions[middle] ?? 0) <= limit) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/** Never inside a user mention (`<@U…>`), which would then ping no one and show its id. */
function hardCut(markdown: string, start: number, maxChars: number): number {
  let end = start + maxChars;
  const window = markdown.slice(start, end);
  const space = Math.max(window.lastIndexOf(" "), window.lastIndexOf("\t"));
  if (space >= maxChars / 2) return start + space + 1;
  const open = window.lastIndexOf("<@");
  if (open > 0 && MENTION_PREFIX.test(window.slice(open)) && markdown[end] !== undefined) {
    const mention = MENTION.exec(markdown.slice(start + open, start + open + MAX_MENTION_CHARS));
    if (mention !== null && start + open + mention[0].length > end) return start + open;
  }
  if (isHighSurrogate(markdown.charCodeAt(end - 1)) && end - 1 > start) end -= 1;
  return end;
}

function skipBlankLines(markdown: string, position: number): number {
  BLANK_LINES.lastIndex = position;
  const match = BLANK_LINES.exec(markdown);
  return match === null ? position : position + match[0].length;
}
