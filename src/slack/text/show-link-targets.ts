import { findMarkdownLinks, type MarkdownLink } from "./find-markdown-links.ts";
import { readGlyphs } from "./read-glyphs.ts";
import { formatShownLink, showLink } from "./show-link.ts";

/** Slack's `<url|label>`, matched on glyphs so `&lt;url&#124;label&gt;` counts too. */
const SLACK_LINK = /<([^\s<>|!@#][^\s<>|]*)\|([^<>\n]*)>/g;

/** One replacement in the source: [start, end) becomes `text`. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Rewrites the links of an untrusted Markdown note so that every reader sees where each
 * one goes: `[Quarterly report](https://evil.example/x)` becomes
 * `Quarterly report (https://evil.example/x)`, and so do images, reference links
 * (`[text][ref]` with `[ref]: url`) and Slack's own `<https://evil.example|label>`
 * (whose brackets and bar may be written as character references, which a Markdown reader
 * sees as the characters). A link whose text is its target becomes the bare target;
 * autolinks and bare URLs stay as they are, as Slack shows them as themselves. How a link
 * is shown is `showLink`'s rule, which the canvas follows too (canvas-markdown.ts).
 *
 * Links are found as CommonMark finds them (find-markdown-links.ts), and also inside code,
 * where they would not be links: a reading that disagreed with Slack's about where code
 * starts must not leave a link hidden, and a link written in code showing as
 * `text (url)` costs little.
 *
 * The result can be longer than the note (a reference link's target may be long), so it is
 * applied before the note is split into messages.
 */
export function showLinkTargets(markdown: string): string {
  const links = findMarkdownLinks(markdown);
  const edits = links.flatMap((link, index) => editsFor(markdown, link, links[index + 1]));
  return showSlackLinks(applyEdits(markdown, edits));
}

/**
 * `[text](url)` as `text (url)`: the `[` (or `![`) goes, the `](url "title")` becomes
 * ` (url)`. Links inside the text have edits of their own, between these two. A link with
 * no text, or whose text is its target, becomes the target alone.
 */
function editsFor(markdown: string, link: MarkdownLink, next: MarkdownLink | undefined): Edit[] {
  const shown = showLink(markdown.slice(link.textStart, link.textEnd), link.target);
  const hasInnerLinks = next !== undefined && next.start < link.textEnd;
  if (!hasInnerLinks && (shown.text === "" || shown.target === "")) {
    return [{ start: link.start, end: link.end, text: formatShownLink(shown) }];
  }
  return [
    { start: link.start, end: link.textStart, text: "" },
    { start: link.textEnd, end: link.end, text: shown.target === "" ? "" : ` (${shown.target})` },
  ];
}

/** Applies edits that do not overlap, in one pass. */
function applyEdits(source: string, edits: Edit[]): string {
  if (edits.length === 0) return source;
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = "";
  let position = 0;
  for (const edit of sorted) {
    out += source.slice(position, edit.start) + edit.text;
    position = edit.end;
  }
  return out + source.slice(position);
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
