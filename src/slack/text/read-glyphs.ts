/** A character as a reader of rendered Markdown sees it: itself, or a reference (`&#60;`) to it. */
export interface Glyph {
  char: string;
  start: number;
  end: number;
  encoded: boolean;
}

/**
 * Only Slack's control characters and invisible ones: any other name reads as plain text, and
 * case is ignored, both of which only make more text inert.
 */
const NAMED: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  excl: "!",
  commat: "@",
  num: "#",
  vert: "|",
  verbar: "|",
  verticalline: "|",
  zerowidthspace: "\u200B",
  negativeverythinspace: "\u200B",
  negativethinspace: "\u200B",
  negativemediumspace: "\u200B",
  negativethickspace: "\u200B",
  zwnj: "\u200C",
  zwj: "\u200D",
  lrm: "\u200E",
  rlm: "\u200F",
  nobreak: "\u2060",
  af: "\u2061",
  applyfunction: "\u2061",
  it: "\u2062",
  invisibletimes: "\u2062",
  ic: "\u2063",
  invisiblecomma: "\u2063",
  shy: "\u00AD",
};

/** HTML also reads these few without the `;` (`&lt!here`); so does this. */
const LEGACY = /&(lt|gt|amp)/iy;
const NAMED_REFERENCE = /&([A-Za-z][A-Za-z0-9]{0,31});/y;
const DECIMAL_REFERENCE = /&#(\d+);?/y;
const HEX_REFERENCE = /&#[xX]([0-9A-Fa-f]+);?/y;

/**
 * So a search for `<!here>` or `@here` also finds `&lt;&#33;here&gt;` and `&commat;here`.
 * Numeric references, as in HTML, may lack the `;`; an impossible code point reads as U+FFFD.
 */
export function readGlyphs(text: string): Glyph[] {
  const glyphs: Glyph[] = [];
  let position = 0;
  while (position < text.length) {
    const reference = text[position] === "&" ? readReference(text, position) : undefined;
    if (reference !== undefined) {
      glyphs.push({ ...reference, start: position, encoded: true });
      position = reference.end;
      continue;
    }
    const code = text.codePointAt(position) ?? 0;
    const char = String.fromCodePoint(code);
    glyphs.push({ char, start: position, end: position + char.length, encoded: false });
    position += char.length;
  }
  return glyphs;
}

const named = (name: string | undefined) => NAMED[(name ?? "").toLowerCase()];

/** Numeric first, then a name this file knows, then a legacy one without its `;`. */
const REFERENCES = [
  [HEX_REFERENCE, (digits: string | undefined) => fromCode(Number.parseInt(digits ?? "", 16))],
  [DECIMAL_REFERENCE, (digits: string | undefined) => fromCode(Number.parseInt(digits ?? "", 10))],
  [NAMED_REFERENCE, named],
  [LEGACY, named],
] as const;

function readReference(text: string, at: number): { char: string; end: number } | undefined {
  for (const [pattern, read] of REFERENCES) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    const char = match === null ? undefined : read(match[1]);
    if (char !== undefined) return { char, end: pattern.lastIndex };
  }
  return undefined;
}

function fromCode(code: number): string {
  const valid =
    Number.isSafeInteger(code) &&
    code > 0 &&
    code <= 0x10ffff &&
    !(code >= 0xd800 && code <= 0xdfff);
  return valid ? String.fromCodePoint(code) : "\uFFFD";
}
