import { isBidiControl, isInvisibleChar, stripBidiControls } from "../../text/index.ts";
import { type Glyph, readGlyphs } from "./read-glyphs.ts";

/*
 * How Slack reads text (https://docs.slack.dev/messaging/formatting-message-text/):
 * `&`, `<` and `>` are its control characters. `<@U…>`/`<@W…>` mention a person, `<#C…>`
 * links a channel, `<!here>`, `<!channel>`, `<!everyone>` notify many, `<!subteam^S…>` a
 * user group, and `<url|label>` is a link that shows only its label — each with an
 * optional `|label`. In mrkdwn only `&amp;`, `&lt;` and `&gt;` are decoded, "for display",
 * so an escaped `&lt;!here&gt;` is shown, not acted on (escape-mrkdwn.ts). Bare `@here`,
 * `@channel` and `@everyone` become broadcasts when a message is posted with `link_names`.
 *
 * A `markdown` block takes standard Markdown
 * (https://docs.slack.dev/reference/block-kit/blocks/markdown-block), where every
 * character reference is shown as its character: `&lt;!channel&gt;`, `&#60;!here&#62;`
 * and `&commat;here` read as `<!channel>`, `<!here>` and `@here`. Slack does not say
 * whether it then acts on them, so what a reader would see must be inert too. The text is
 * therefore read as glyphs (read-glyphs.ts) and matched on what they show; edits replace
 * one glyph's source with one character, never a longer string.
 */

/** The look-alikes are single UTF-16 units, so neutralising never makes text longer. */
const SINGLE_ANGLE_LEFT = "\u2039"; // ‹
const SINGLE_ANGLE_RIGHT = "\u203A"; // ›
const FULLWIDTH_AT = "\uFF20"; // ＠
const FULLWIDTH_AMPERSAND = "\uFF06"; // ＆

const BROADCASTS = ["channel", "here", "everyone"] as const;
const SEQUENCE_STARTS = new Set(["!", "@", "#"]);
const WORD_CHAR = /^\w$/;

/**
 * Control characters (C0, DEL, C1: Unicode's `Cc`) except tab and newline; a carriage
 * return goes too. Read `[^\P{Cc}\t\n]` as "a `Cc` character that is not tab or newline".
 */
const CONTROL_CHARS = /[^\P{Cc}\t\n]/gu;

/**
 * Makes text inert where escaping is not an option: `markdown` blocks and `text`
 * fallbacks, where `&lt;` would be shown as it is.
 *
 * The angle brackets of a control sequence (written as `<` or as a reference such as
 * `&lt;` or `&#x3C;`) are replaced with the look-alikes ‹ and › rather than split with a
 * zero-width space: with no `<` left, no parser (mrkdwn, the Markdown block's renderer,
 * notifications, unfurls) can read a mention, whatever it does with invisible characters
 * — and the reader still sees `‹@U123›`. The `@` of a bare `@channel`, `@here` or
 * `@everyone` becomes a full-width ＠ for the same reason, also when invisible characters
 * sit inside the word. Control characters and bidi overrides are removed; a reference to
 * one keeps its text but loses its meaning (`＆#x202E;`). Other `<` (as in `a < b` or a
 * plain link) are left alone. The result is never longer than the text.
 */
export function neutralizeMentions(text: string): string {
  return rewriteGlyphs(stripUnsafeChars(text), { sequences: true });
}

/** Gives bare `@channel`, `@here` and `@everyone` a full-width ＠ that Slack does not link. */
export function defuseBareBroadcasts(text: string): string {
  return rewriteGlyphs(text, { sequences: false });
}

/** Removes control characters other than tab and newline. */
export function stripControlChars(text: string): string {
  return text.replace(CONTROL_CHARS, "");
}

/** Removes control characters (but tab and newline) and bidi embeddings, overrides, isolates. */
export function stripUnsafeChars(text: string): string {
  return stripBidiControls(stripControlChars(text));
}

/**
 * Whether text holds a control character. For a single-line value (a name) tab and newline
 * count too: they never belong in a name. `multiline` allows tab, newline and carriage
 * return, for text boxes.
 */
export function hasControlChars(text: string, options: { multiline?: boolean } = {}): boolean {
  return (options.multiline ? /[^\P{Cc}\t\n\r]/u : /\p{Cc}/u).test(text);
}

/** Finds what to neutralise on the glyphs and writes the text back with the replacements. */
function rewriteGlyphs(text: string, options: { sequences: boolean }): string {
  // Fast path: no character that could start anything to neutralise.
  if (!/[<@&]/.test(text)) return text;
  const glyphs = readGlyphs(text);
  const replacements = new Map<number, string>();
  glyphs.forEach((glyph, index) => {
    if (options.sequences && glyph.char === "<") markSequence(glyphs, index, replacements);
    else if (glyph.char === "@" && isBroadcastAt(glyphs, index)) {
      replacements.set(index, FULLWIDTH_AT);
    } else if (glyph.encoded && isUnsafe(glyph.char)) {
      // Removing it could join the text around it into a new reference (`&&#7;#60;`):
      // breaking its `&` keeps it as plain, harmless text of the same length.
      replacements.set(index, `${FULLWIDTH_AMPERSAND}${text.slice(glyph.start + 1, glyph.end)}`);
    }
  });
  if (replacements.size === 0) return text;
  return glyphs
    .map((glyph, index) => replacements.get(index) ?? text.slice(glyph.start, glyph.end))
    .join("");
}

/** A `<` that starts a control sequence becomes ‹, and the `>` that closes it ›. */
function markSequence(glyphs: Glyph[], open: number, replacements: Map<number, string>) {
  const first = nextVisible(glyphs, open + 1);
  if (first === undefined || !SEQUENCE_STARTS.has(glyphs[first]?.char ?? "")) return;
  replacements.set(open, SINGLE_ANGLE_LEFT);
  // An unclosed one (`<!chan…` cut by a length limit) keeps only the ‹: text joined after
  // it could otherwise close it.
  for (let index = first + 1; index < glyphs.length; index++) {
    const char = glyphs[index]?.char;
    if (char === "<" || char === "\n") return;
    if (char === ">") {
      replacements.set(index, SINGLE_ANGLE_RIGHT);
      return;
    }
  }
}

/** Whether the `@` at `at` starts `channel`, `here` or `everyone` as a whole word. */
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

/** The index of the first glyph from `from` on that is not invisible. */
function nextVisible(glyphs: Glyph[], from: number): number | undefined {
  for (let index = from; index < glyphs.length; index++) {
    const glyph = glyphs[index];
    if (glyph !== undefined && !isInvisibleChar(glyph.char)) return index;
  }
  return undefined;
}

/** What a reference must not smuggle in: a control character or a bidi control. */
function isUnsafe(char: string): boolean {
  return (/\p{Cc}/u.test(char) && char !== "\t" && char !== "\n") || isBidiControl(char);
}
