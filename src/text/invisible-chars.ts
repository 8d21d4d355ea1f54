/**
 * Characters a reader cannot see: file names for the Note Service and text for Slack both
 * need them.
 *
 * Unicode's format characters (`Cf`): zero-width space and joiners, the bidi marks,
 * embeddings, overrides and isolates, the word joiner and invisible operators, the byte
 * order mark, the soft hyphen, tag characters… Plus the line and paragraph separators and
 * the Hangul fillers, which render as blank space and make a name look empty or different.
 */
const INVISIBLE_CLASS = "[\\p{Cf}\\u2028\\u2029\\u115F\\u1160\\u3164\\uFFA0]";
const INVISIBLE = new RegExp(INVISIBLE_CLASS, "gu");
const ONE_INVISIBLE = new RegExp(`^${INVISIBLE_CLASS}$`, "u");

/**
 * The bidi controls that reorder what follows them: embeddings and overrides
 * (U+202A–U+202E) and isolates (U+2066–U+2069). An override can make
 * `https://evil.example/gpj.exe` read as something else.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
const ONE_BIDI_CONTROL = /^[\u202A-\u202E\u2066-\u2069]$/;

/** Whether one character (a code point) is invisible in the sense of `stripInvisibleChars`. */
export function isInvisibleChar(char: string): boolean {
  return ONE_INVISIBLE.test(char);
}

/**
 * Removes every invisible character, for names and file names, where none belongs. Emoji
 * built with a zero-width joiner fall apart into their pieces; that is the price of a name
 * that shows what it is.
 */
export function stripInvisibleChars(text: string): string {
  return text.replace(INVISIBLE, "");
}

/**
 * Removes only the bidi embeddings, overrides and isolates, for prose (a note, a message
 * from the service): the marks U+200E/U+200F and the joiners stay, as right-to-left
 * languages and emoji need them, but nothing can reorder the text around it.
 */
export function stripBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}

/** Whether one character is a bidi embedding, override or isolate. */
export function isBidiControl(char: string): boolean {
  return ONE_BIDI_CONTROL.test(char);
}
