import { applyEdits, defuseLinks, type Edit, linkEditsOf, mayHoldLinks } from "./link-edits.ts";
import { readGlyphs } from "./read-glyphs.ts";
import { type NoteReading, readNote } from "./read-note.ts";
import { formatShownLink, showLink } from "./show-link.ts";

/** Slack's `<url|label>`, matched on glyphs so `&lt;url&#124;label&gt;` counts too. */
const SLACK_LINK = /<([^\s<>|!@#][^\s<>|]*)\|([^<>\n]*)>/g;

/**
 * How many times the note is read again after its links are shown: showing an inner link
 * can make a link of the brackets around it (CommonMark lets no link hold another).
 */
const MAX_ROUNDS = 4;

/**
 * Shows where every link of an untrusted note goes, by `showLink`'s rule as the canvas does; link
 * syntax in code, HTML or an unparsed chunk is defused, as Slack's reader may end those elsewhere.
 * The result can be longer than the note, so it runs before the note is split into messages.
 */
export function showLinkTargets(markdown: string): string {
  // Every Markdown link, image and definition has a `](` or a `]:`; the parse can wait.
  if (!/\](?=[(:])/.test(markdown)) return showSlackLinks(markdown);
  let reading = readNote(markdown);
  for (let round = 1; ; round++) {
    const { text, again } = showReadLinks(reading);
    if (!again) return showSlackLinks(text);
    if (round === MAX_ROUNDS) return showSlackLinks(defuseLinks(text, reading.definitions));
    // The whole note is read again, so the parser's budget (parse-note.ts) holds per round.
    reading = readNote(text, reading.definitions);
  }
}

/** The note with its links shown, and whether that may have made new ones. */
function showReadLinks({ chunks, definitions }: NoteReading): { text: string; again: boolean } {
  let again = false;
  const texts = chunks.map((chunk) => {
    if (chunk.tree === undefined) return defuseLinks(chunk.text, definitions);
    const { edits, links, conflicts } = linkEditsOf(chunk, definitions);
    const shown = applyEdits(chunk.text, edits);
    again ||= conflicts || (links && mayHoldLinks(shown, definitions));
    return shown;
  });
  return { text: texts.join("\n"), again };
}

/**
 * Slack's `<url|label>`, brackets and bar written as characters or as references, as
 * `label (url)`: never longer. Mentions (`<@U…|name>`, `<#C…|name>`, `<!…>`) are left to
 * `neutralizeMentions`.
 */
function showSlackLinks(text: string): string {
  if (!/[<&]/.test(text)) return text;
  const glyphs = readGlyphs(text);
  // Glyphs can be two UTF-16 units (astral characters): map view offsets to glyphs.
  const glyphAt: number[] = [];
  glyphs.forEach((glyph, index) => {
    for (let unit = 0; unit < glyph.char.length; unit++) glyphAt.push(index);
  });
  glyphAt.push(glyphs.length);
  const view = glyphs.map((glyph) => glyph.char).join("");
  const sourceAt = (offset: number) =>
    glyphs[glyphAt[offset] ?? glyphs.length]?.start ?? text.length;
  const edits: Edit[] = [];
  for (const match of view.matchAll(SLACK_LINK)) {
    const urlStart = match.index + 1;
    const urlEnd = urlStart + (match[1] ?? "").length;
    const labelEnd = urlEnd + 1 + (match[2] ?? "").length;
    const url = text.slice(sourceAt(urlStart), sourceAt(urlEnd));
    const label = text.slice(sourceAt(urlEnd + 1), sourceAt(labelEnd));
    const shown = formatShownLink(showLink(label, url));
    edits.push({ start: sourceAt(match.index), end: sourceAt(labelEnd + 1), text: shown });
  }
  return applyEdits(text, edits);
}
