import { isInvisibleChar } from "../../text/index.ts";
import { type Glyph, readGlyphs } from "./read-glyphs.ts";

/** A look-alike of `!` that no Markdown reader takes for the start of an image. */
export const FULLWIDTH_EXCLAMATION = "\uFF01"; // ！

/**
 * In a canvas an image is a mention (`![](@U…)`) or an unfurl, so no `![` may survive, whatever
 * the reader makes of escapes, character references or invisible characters between the two.
 */
export function defuseImageMarks(text: string): string {
  if (!/[!&]/.test(text) || !/[[&]/.test(text)) return text;
  const glyphs = readGlyphs(text);
  let out = "";
  let changed = false;
  glyphs.forEach((glyph, index) => {
    const source = text.slice(glyph.start, glyph.end);
    if (glyph.char !== "!" || !opensBracket(glyphs, index + 1)) {
      out += source;
      return;
    }
    out += FULLWIDTH_EXCLAMATION;
    changed = true;
  });
  return changed ? out : text;
}

function opensBracket(glyphs: Glyph[], from: number): boolean {
  for (let index = from; index < glyphs.length; index++) {
    const char = glyphs[index]?.char ?? "";
    if (!isInvisibleChar(char)) return char === "[";
  }
  return false;
}
