/**
 * Characters a reader cannot see: Unicode's format characters (`Cf`: zero-width, bidi marks,
 * tags…), the line and paragraph separators and the Hangul fillers.
 */
const INVISIBLE_CLASS = "[\\p{Cf}\\u2028\\u2029\\u115F\\u1160\\u3164\\uFFA0]";
const INVISIBLE = new RegExp(INVISIBLE_CLASS, "gu");
const ONE_INVISIBLE = new RegExp(`^${INVISIBLE_CLASS}$`, "u");

/** Bidi embeddings, overrides and isolates: they reorder what follows them. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
const ONE_BIDI_CONTROL = /^[\u202A-\u202E\u2066-\u2069]$/;

export function isInvisibleChar(char: string): boolean {
  return ONE_INVISIBLE.test(char);
}

/** For names, where no invisible character belongs (a ZWJ emoji falls apart). */
export function stripInvisibleChars(text: string): string {
  return text.replace(INVISIBLE, "");
}

/** For prose: the marks and joiners right-to-left text and emoji need stay. */
export function stripBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}

export function isBidiControl(char: string): boolean {
  return ONE_BIDI_CONTROL.test(char);
}
