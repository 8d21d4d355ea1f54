import { isInvisibleChar, stripBidiControls } from "../../text/index.ts";
import { type Glyph, readGlyphs } from "./read-glyphs.ts";

/*
 * `&`, `<` and `>` are Slack's control characters
 * (https://docs.slack.dev/messaging/formatting-message-text/). Slack does not say whether a
 * `markdown` block acts on character references, so text is matched on glyphs (read-glyphs.ts).
 */

/** Single UTF-16 units, so neutralising never makes text longer. */
const SINGLE_ANGLE_LEFT = "\u2039"; // ‹
const SINGLE_ANGLE_RIGHT = "\u203A"; // ›
const FULLWIDTH_AT = "\uFF20"; // ＠
const FULLWIDTH_AMPERSAND = "\uFF06"; // ＆
/** A look-alike of `!` that no Markdown reader takes for the start of an image. */
export const FULLWIDTH_EXCLAMATION = "\uFF01"; // ！

const BROADCASTS = ["channel", "here", "everyone"] as const;
const SEQUENCE_STARTS = new Set(["!", "@", "#"]);
const WORD_CHAR = /^\w$/;

/** `Cc` characters but tab and newline (a carriage return goes too). */
const CONTROL_CHARS = /[^\P{Cc}\t\n]/gu;

/**
 * For `markdown` blocks and `text` fallbacks, where `&lt;` would be shown as it is. A control
 * sequence's angle brackets become ‹ › (no `<` left, no parser can read a mention, whatever it
 * does with invisible characters) and a broadcast's `@` becomes ＠; plain `a < b` is left alone.
 */
export function neutralizeMentions(text: string): string {
  return rewriteGlyphs(stripUnsafeChars(text), { sequences: true });
}

/** For mrkdwn: after this, no `<…>` in the text can become a link, a mention or a broadcast. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * Also defuses bare `@here`-style broadcasts, which Slack links when `link_names` is on. Mrkdwn
 * decodes only `&amp;`, `&lt;` and `&gt;`, so once every `&` is escaped `&#60;!here&#62;` stays
 * inert.
 */
export function safeMrkdwn(text: string): string {
  return rewriteGlyphs(escapeMrkdwn(stripUnsafeChars(text)), { sequences: false });
}

export function stripControlChars(text: string): string {
  return text.replace(CONTROL_CHARS, "");
}

export function stripUnsafeChars(text: string): string {
  return stripBidiControls(stripControlChars(text));
}

/** A name may hold no tab or newline either; `multiline` allows them, for text boxes. */
export function hasControlChars(text: string, options: { multiline?: boolean } = {}): boolean {
  return (options.multiline ? /[^\P{Cc}\t\n\r]/u : /\p{Cc}/u).test(text);
}

function rewriteGlyphs(text: string, options: { sequences: boolean }): string {
  if (!/[<@&]/.test(text)) return text;
  const glyphs = readGlyphs(text);
  const replacements = new Map<number, string>();
  glyphs.forEach((glyph, index) => {
    if (options.sequences && glyph.char === "<") markSequence(glyphs, index, replacements);
    else if (glyph.char === "@" && isBroadcastAt(glyphs, index)) {
      replacements.set(index, FULLWIDTH_AT);
    } else if (glyph.encoded && stripUnsafeChars(glyph.char) !== glyph.char) {
      // Removing it could join its neighbours into a new reference (`&&#7;#60;`).
      replacements.set(index, `${FULLWIDTH_AMPERSAND}${text.slice(glyph.start + 1, glyph.end)}`);
    }
  });
  return replaceGlyphs(text, glyphs, replacements);
}

/**
 * In a canvas an image is a mention (`![](@U…)`) or an unfurl, so no `![` may survive, whatever
 * the reader makes of escapes, character references or invisible characters between the two.
 */
export function defuseImageMarks(text: string): string {
  if (!/[!&]/.test(text) || !/[[&]/.test(text)) return text;
  const glyphs = readGlyphs(text);
  const replacements = new Map<number, string>();
  glyphs.forEach((glyph, index) => {
    if (glyph.char !== "!") return;
    const next = glyphs[nextVisible(glyphs, index + 1) ?? glyphs.length];
    if (next?.char === "[") replacements.set(index, FULLWIDTH_EXCLAMATION);
  });
  return replaceGlyphs(text, glyphs, replacements);
}

function replaceGlyphs(text: string, glyphs: Glyph[], replacements: Map<number, string>): string {
  if (replacements.size === 0) return text;
  return glyphs
    .map((glyph, index) => replacements.get(index) ?? text.slice(glyph.start, glyph.end))
    .join("");
}

function markSequence(glyphs: Glyph[], open: number, replacements: Map<number, string>) {
  const first = nextVisible(glyphs, open + 1);
  if (first === undefined || !SEQUENCE_STARTS.has(glyphs[first]?.char ?? "")) return;
  replacements.set(open, SINGLE_ANGLE_LEFT);
  // An unclosed one (cut by a length limit) keeps only the ‹: text joined after could close it.
  for (let index = first + 1; index < glyphs.length; index++) {
    const char = glyphs[index]?.char;
    if (char === "<" || char === "\n") return;
    if (char === ">") {
      replacements.set(index, SINGLE_ANGLE_RIGHT);
      return;
    }
  }
}

function isBroadcastAt(glyphs: Glyph[], at: number): boolean {
  return BROADCASTS.some((word) => {
    let index = at;
    for (const letter of word) {
      const next = nextVisible(glyphs, index + 1);
      if (next === undefined || glyphs[next]?.char.toLowerCase() !== letter) return false;
      index = next;
    }
    const after = glyphs[index + 1]?.char;
    return after === undefined || !WORD_CHAR.test(after);
  });
}

function nextVisible(glyphs: Glyph[], from: number): number | undefined {
  for (let index = from; index < glyphs.length; index++) {
    const glyph = glyphs[index];
    if (glyph !== undefined && !isInvisibleChar(glyph.char)) return index;
  }
  return undefined;
}
