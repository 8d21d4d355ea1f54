/**
 * Writes benchmark sections into RESULTS.md in place. The file is the generated sections
 * (`<!-- bench:NAME -->` … `<!-- /bench:NAME -->`) and whatever people wrote around them (a
 * before/after comparison, a note on a missed target): only the header and the sections
 * measured now change, every other line stays where it was.
 */

/** The header's end in files written before it had markers: its last line. */
const LEGACY_HEADER_END = "to read; absolute times move with the load.\n";

function sectionPattern(name: string): RegExp {
  return new RegExp(`<!-- bench:${name} -->[\\s\\S]*?<!-- /bench:${name} -->`);
}

function wrap(name: string, body: string): string {
  return `<!-- bench:${name} -->\n${body.trim()}\n<!-- /bench:${name} -->`;
}

/**
 * `previous` with its header and the `fresh` sections replaced; a fresh section the file
 * lacks goes after the last section that comes before it in `order` (else after the header).
 */
export function mergeResults(
  previous: string,
  header: string,
  fresh: ReadonlyMap<string, string>,
  order: readonly string[],
): string {
  let document = withHeader(previous, wrap("header", header));
  for (const name of order) {
    const body = fresh.get(name);
    if (body === undefined) continue;
    const section = wrap(name, body);
    const existing = sectionPattern(name).exec(document);
    if (existing !== null) {
      document = splice(document, existing.index, existing[0].length, section);
      continue;
    }
    document = splice(document, insertionPoint(document, name, order), 0, `\n\n${section}`);
  }
  return document.endsWith("\n") ? document : `${document}\n`;
}

function withHeader(previous: string, header: string): string {
  const marked = sectionPattern("header").exec(previous);
  if (marked !== null) return splice(previous, marked.index, marked[0].length, header);
  const legacyEnd = previous.startsWith("# ") ? previous.indexOf(LEGACY_HEADER_END) : -1;
  if (legacyEnd >= 0) {
    return splice(previous, 0, legacyEnd + LEGACY_HEADER_END.length - 1, header);
  }
  return previous.trim() === "" ? header : `${header}\n\n${previous}`;
}

/** After the last section of a name before `name` in `order`, else after the header. */
function insertionPoint(document: string, name: string, order: readonly string[]): number {
  const before = order.slice(0, order.indexOf(name)).reverse();
  for (const other of [...before, "header"]) {
    const match = sectionPattern(other).exec(document);
    if (match !== null) return match.index + match[0].length;
  }
  return document.length;
}

function splice(text: string, at: number, length: number, insert: string): string {
  return text.slice(0, at) + insert + text.slice(at + length);
}
