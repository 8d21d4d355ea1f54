/** A Markdown link or image, by position in the source. */
export interface MarkdownLink {
  /** The `[`, or the `!` of an image. */
  start: number;
  textStart: number;
  textEnd: number;
  /** Just past the `)`, or past the `]` of a reference. */
  end: number;
  target: string;
}

/** `[label]: target` at the start of a line (CommonMark link reference definitions). */
const DEFINITION = /^ {0,3}\[((?:\\.|[^\\[\]]){1,999})\]:[ \t]*\n?[ \t]*(<[^<>\n]*>|[^\s<]\S*)/gm;
const MAX_LABEL_CHARS = 999;
const FAIL = -1;

/**
 * Every link and image of a Markdown text as CommonMark finds them — inline, with or without
 * a `<…>` target and a title, and reference links (`[text][ref]`, `[ref][]`, `[ref]` with a
 * `[ref]: target` somewhere) — inner ones included, sorted by start. Brackets pair up as
 * CommonMark pairs them: a `]` closes the nearest open `[`. Unlike CommonMark it also finds
 * them inside code, and inside other links; see `showLinkTargets` for why.
 *
 * The text is untrusted, so the work stays linear: every look-up ahead (the end of a
 * target, a title's closing quote, a label's `]`) is read from tables built in one pass.
 */
export function findMarkdownLinks(markdown: string): MarkdownLink[] {
  if (!markdown.includes("]")) return [];
  const scan = new Scan(markdown);
  const { definitions, starts } = readDefinitions(markdown);
  const links: MarkdownLink[] = [];
  const opens: number[] = [];
  for (let i = 0; i < markdown.length; i++) {
    const char = markdown[i];
    if (scan.isEscaped(i)) continue;
    if (char === "[") opens.push(i);
    if (char !== "]") continue;
    const open = opens.pop();
    if (open === undefined) continue;
    const tail = readTail(scan, i + 1, { start: open + 1, end: i }, definitions, starts);
    if (tail === undefined) continue;
    const image = open > 0 && markdown[open - 1] === "!" && !scan.isEscaped(open - 1);
    links.push({ start: image ? open - 1 : open, textStart: open + 1, textEnd: i, ...tail });
    // The target is not read for brackets.
    i = tail.end - 1;
  }
  return links.sort((a, b) => a.start - b.start || b.end - a.end);
}

/**
 * The link reference definitions, by normalised label (the first one of a label wins), and
 * where their `[` are. A definition cannot interrupt a paragraph, so one is taken only at
 * the start of the text, after a blank line, or on the line after another definition;
 * anything else that looks like one (`[r]:` with no target, or under a line of text) is
 * read as the link it is.
 */
function readDefinitions(markdown: string): {
  definitions: Map<string, string>;
  starts: Set<number>;
} {
  const definitions = new Map<string, string>();
  const starts = new Set<number>();
  if (!markdown.includes("]:")) return { definitions, starts };
  let afterDefinition = -1;
  for (const match of markdown.matchAll(DEFINITION)) {
    const lineStart = match.index;
    const previousStart = markdown.lastIndexOf("\n", lineStart - 2) + 1;
    const previousBlank = /^[ \t\r]*$/.test(
      markdown.slice(previousStart, Math.max(previousStart, lineStart - 1)),
    );
    if (lineStart !== 0 && lineStart !== afterDefinition && !previousBlank) continue;
    const label = normalizeLabel(match[1] ?? "");
    const target = (match[2] ?? "").replace(/^<(.*)>$/, "$1");
    if (label !== "" && !definitions.has(label)) definitions.set(label, target);
    starts.add(markdown.indexOf("[", lineStart));
    const lineEnd = markdown.indexOf("\n", lineStart + match[0].length);
    afterDefinition = lineEnd === -1 ? markdown.length : lineEnd + 1;
  }
  return { definitions, starts };
}

/** Labels match without regard to case or runs of white space. */
function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, " ").toUpperCase().toLowerCase();
}

/** What follows a `]` that makes a link: `(target)`, `[ref]`, `[]`, or a defined `[text]`. */
function readTail(
  scan: Scan,
  at: number,
  text: { start: number; end: number },
  definitions: Map<string, string>,
  definitionStarts: Set<number>,
): { end: number; target: string } | undefined {
  const { source } = scan;
  if (source[at] === "(") {
    const inline = readInlineTail(scan, at);
    if (inline !== undefined) return inline;
  }
  if (definitions.size === 0) return undefined;
  const ownLabel =
    text.end - text.start <= MAX_LABEL_CHARS ? source.slice(text.start, text.end) : undefined;
  if (source[at] === "[") {
    const close = scan.next("]", at + 1);
    const open = scan.next("[", at + 1);
    if (close !== FAIL && (open === FAIL || open > close) && close - at <= MAX_LABEL_CHARS + 1) {
      const label = source.slice(at + 1, close);
      const target = definitions.get(normalizeLabel(label === "" ? (ownLabel ?? "") : label));
      if (target !== undefined) return { end: close + 1, target };
    }
  }
  // `[label]:` of a definition is the definition itself, not a use of it.
  if ((source[at] === ":" && definitionStarts.has(text.start - 1)) || ownLabel === undefined) {
    return undefined;
  }
  const target = definitions.get(normalizeLabel(ownLabel));
  return target === undefined ? undefined : { end: at, target };
}

/** `(target "title")` from its `(`: the end and the target, or undefined if it is not one. */
function readInlineTail(scan: Scan, at: number): { end: number; target: string } | undefined {
  const { source } = scan;
  let position = skipSpace(source, at + 1);
  let target: string;
  if (source[position] === "<") {
    const close = scan.next(">", position + 1);
    if (
      close === FAIL ||
      scan.before("<", position + 1, close) ||
      scan.before("\n", position, close)
    ) {
      return undefined;
    }
    target = source.slice(position + 1, close);
    position = close + 1;
  } else {
    const end = scan.targetEnd(position);
    if (end === FAIL) return undefined;
    target = source.slice(position, end);
    position = end;
  }
  const beforeTitle = position;
  position = skipSpace(source, position);
  const opener = source[position];
  if (position > beforeTitle && (opener === '"' || opener === "'" || opener === "(")) {
    const close = scan.titleEnd(position);
    if (close === FAIL) return undefined;
    position = skipSpace(source, close + 1);
  }
  return source[position] === ")" ? { end: position + 1, target } : undefined;
}

/** Spaces and tabs, and at most one line break. */
function skipSpace(source: string, at: number): number {
  let position = at;
  let lineBreaks = 0;
  for (; position < source.length; position++) {
    const char = source[position];
    if (char === "\n" && lineBreaks++ === 0) continue;
    if (char !== " " && char !== "\t" && char !== "\r") break;
  }
  return position;
}

/** Tables over the source, built once, that answer the scanner's look-ups ahead. */
class Scan {
  readonly source: string;
  readonly #escaped: Uint8Array;
  /** Where a target without `<…>` starting here ends, or FAIL (unbalanced parentheses). */
  readonly #targetEnd: Int32Array;
  readonly #positions = new Map<string, number[]>();
  readonly #blankLines: number[];

  constructor(source: string) {
    this.source = source;
    const length = source.length;
    this.#escaped = new Uint8Array(length + 1);
    for (let i = 1; i < length; i++) {
      const escapes = source[i - 1] === "\\" && this.#escaped[i - 1] === 0;
      if (escapes && /[!-/:-@[-`{-~]/.test(source[i] ?? "")) this.#escaped[i] = 1;
    }
    this.#targetEnd = this.#targetEnds();
    this.#blankLines = [...source.matchAll(/\n[ \t]*(?=\n)/g)].map((match) => match.index);
  }

  isEscaped(position: number): boolean {
    return this.#escaped[position] === 1;
  }

  targetEnd(position: number): number {
    return this.#targetEnd[position] ?? FAIL;
  }

  /** The first unescaped `char` at or after `from`, or FAIL. */
  next(char: string, from: number): number {
    const positions = this.#positionsOf(char);
    const index = firstAtLeast(positions, from);
    return positions[index] ?? FAIL;
  }

  /** Whether an unescaped `char` comes in [from, to). */
  before(char: string, from: number, to: number): boolean {
    const found = char === "\n" ? this.#nextLineBreak(from) : this.next(char, from);
    return found !== FAIL && found < to;
  }

  /** A title's closing quote or parenthesis, or FAIL; a title does not cross a blank line. */
  titleEnd(open: number): number {
    const opener = this.source[open];
    const close = this.next(opener === "(" ? ")" : (opener ?? ""), open + 1);
    if (close === FAIL) return FAIL;
    if (opener === "(" && this.before("(", open + 1, close)) return FAIL;
    const blank = this.#blankLines[firstAtLeast(this.#blankLines, open)];
    return blank !== undefined && blank < close ? FAIL : close;
  }

  #nextLineBreak(from: number): number {
    const at = this.source.indexOf("\n", from);
    return at === -1 ? FAIL : at;
  }

  #positionsOf(char: string): number[] {
    let positions = this.#positions.get(char);
    if (positions === undefined) {
      positions = [];
      for (let at = this.source.indexOf(char); at !== -1; at = this.source.indexOf(char, at + 1)) {
        if (!this.isEscaped(at)) positions.push(at);
      }
      this.#positions.set(char, positions);
    }
    return positions;
  }

  /**
   * For every position, where a target without `<…>` starting there would end: at a space,
   * a control character, or a `)` that closes nothing; FAIL when a `(` is never closed.
   * Built from the end, with `group[p]`: where the group opened just before `p` closes.
   */
  #targetEnds(): Int32Array {
    const { source } = this;
    const length = source.length;
    const end = new Int32Array(length + 2).fill(length);
    const group = new Int32Array(length + 2).fill(FAIL);
    for (let p = length - 1; p >= 0; p--) {
      const char = source[p] ?? "";
      if (this.isEscaped(p)) {
        end[p] = end[p + 1] ?? FAIL;
        group[p] = group[p + 1] ?? FAIL;
      } else if (char === " " || isControl(char)) {
        end[p] = p;
        group[p] = FAIL;
      } else if (char === ")") {
        end[p] = p;
        group[p] = p;
      } else if (char === "(") {
        const inner = group[p + 1] ?? FAIL;
        end[p] = inner === FAIL ? FAIL : (end[inner + 1] ?? FAIL);
        group[p] = inner === FAIL ? FAIL : (group[inner + 1] ?? FAIL);
      } else {
        end[p] = end[p + 1] ?? FAIL;
        group[p] = group[p + 1] ?? FAIL;
      }
    }
    return end;
  }
}

/** Index of the first position ≥ `value` in a sorted list (the list's length if none). */
function firstAtLeast(positions: number[], value: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((positions[middle] ?? 0) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Unicode's `Cc`: C0, DEL and C1 (a target ends at one, as at a space). */
function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}
