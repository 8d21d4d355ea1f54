import { type NameFound, nameFinder, type Person } from "./mention-people.ts";
import { type NoteChunk, nodesIn, readNote } from "./read-note.ts";

/** Nodes whose text is not prose a mention belongs in: code, links, images, raw HTML. */
const NOT_PROSE = new Set([
  "code",
  "inlineCode",
  "html",
  "link",
  "linkReference",
  "image",
  "imageReference",
  "definition",
]);

/** Anything between `<` and `>` on one line: Slack's `<url|label>`, `<@U…>`, `<!here>`, HTML. */
const ANGLE_SPAN = /<[^<>\n]*>/g;

/** A stretch of the source, [start, end). */
interface Span {
  start: number;
  end: number;
}

/**
 * Where the names of `people` stand as prose, never in code, links (as `showLinkTargets` reads
 * them), images, raw HTML or `<…>`; an unparsed chunk gets none, as no mention beats one in code.
 */
export function findMentionableNames(markdown: string, people: readonly Person[]): NameFound[] {
  const found = nameFinder(people)?.(markdown) ?? [];
  // Parsing a long note costs far more than looking for names: only when there are some.
  if (found.length === 0) return [];
  const { chunks } = readNote(markdown);
  const prose = chunks.flatMap(proseSpans).sort((a, b) => a.start - b.start);
  const angles = [...markdown.matchAll(ANGLE_SPAN)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
  }));
  const excluded = [...chunks.flatMap(linkSpans), ...angles].sort((a, b) => a.start - b.start);
  // Names come in order and prose spans do not overlap, so both lists are walked once.
  let proseIndex = 0;
  let excludedIndex = 0;
  let excludedEnd = -1;
  return found.filter((name) => {
    while ((prose[proseIndex]?.end ?? Number.POSITIVE_INFINITY) <= name.start) proseIndex++;
    for (let span = excluded[excludedIndex]; span !== undefined && span.start < name.end; ) {
      excludedEnd = Math.max(excludedEnd, span.end);
      span = excluded[++excludedIndex];
    }
    const span = prose[proseIndex];
    if (span === undefined || span.start > name.start || span.end < name.end) return false;
    return excludedEnd <= name.start;
  });
}

/** The source spans of the GFM tree's text nodes that are prose. */
function proseSpans({ text, start: offset, gfmTree }: NoteChunk): Span[] {
  return [...nodesIn(text, gfmTree, NOT_PROSE)]
    .filter(({ node }) => node.type === "text")
    .map(({ start, end }) => ({ start: offset + start, end: offset + end }));
}

/** The source spans of the links and images of the CommonMark tree. */
function linkSpans({ text, start: offset, tree }: NoteChunk): Span[] {
  return [...nodesIn(text, tree)]
    .filter(({ node }) => ["link", "linkReference", "image", "imageReference"].includes(node.type))
    .map(({ start, end }) => ({ start: offset + start, end: offset + end }));
}
