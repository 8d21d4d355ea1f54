import { isInvisibleChar } from "../../text/index.ts";
import { type Glyph, readGlyphs } from "./read-glyphs.ts";

/** A look-alike of `!` that no Markdown reader takes for the start of an image. */
const FULLWIDTH_EXCLAMATION = "\uFF01"; // ！

/**
 * Replaces the `!` of every `![` in a text with a full-width ！, so that the text cannot
 * spell an image — which in a canvas is a mention (`![](@U…)`, `![](#C…)`) or an unfurl —
 * whoever reads it: a reader that ignores backslash escapes, or that ends a code block
 * where CommonMark does not, still finds no `![`. The `!` and `[` may be written as
 * character references or have invisible characters between them; they are matched as a
 * reader sees them (read-glyphs.ts). The result is never longer than the text.
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

/** Whether the first glyph from `from` on that is not invisible is a `[`. */
function opensBracket(glyphs: Glyph[], from: number): boolean {
  for (let index = from; index < glyphs.length; index++) {
    const char = glyphs[index]?.char ?? "";
    if (!isInvisibleChar(char)) return char === "[";
  }
  return false;
}
