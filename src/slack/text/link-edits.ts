import type { Link, LinkReference, Nodes } from "mdast";
import { identifierOf, LABEL, type NoteChunk, nodesIn } from "./read-note.ts";
import { formatShownLink, showLink } from "./show-link.ts";

/** One replacement in the source: [start, end) becomes `text`. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * A `]` right before `(`, `[` or `:`, where it would join a link to its destination or
 * reference, or start a definition; or a backslash escape, matched to be skipped.
 */
const JOIN = /\\[\s\S]|\](?=[([:])/g;

/**
 * The edits of both readings of a chunk: CommonMark's, and GFM's that do not clash with them (GFM
 * reads a footnote's indented lines as text, CommonMark as code); the next round takes up the rest.
 */
export function linkEditsOf(chunk: NoteChunk, definitions: Map<string, string>) {
  const groups = editGroups(chunk.text, chunk.tree, definitions);
  const edits = groups.flatMap((group) => group.edits);
  let links = groups.some((group) => group.link);
  const taken = new Set(edits.map(keyOf));
  const covered = new Uint8Array(chunk.text.length);
  for (const edit of edits) covered.fill(1, edit.start, edit.end);
  let conflicts = false;
  const gfmTree = chunk.gfmTree === chunk.tree ? undefined : chunk.gfmTree;
  for (const group of editGroups(chunk.text, gfmTree, definitions)) {
    const fresh = group.edits.filter((edit) => !taken.has(keyOf(edit)));
    if (fresh.some((edit) => covered.subarray(edit.start, edit.end).includes(1))) conflicts = true;
    else if (fresh.length > 0) {
      edits.push(...fresh);
      links ||= group.link;
    }
  }
  return { edits, links, conflicts };
}

/** A node's edits, and whether they show a link. */
interface EditGroup {
  edits: Edit[];
  link: boolean;
}

/** The edits that show the links of a tree of `text`, node by node. */
function editGroups(
  text: string,
  tree: Nodes | undefined,
  definitions: Map<string, string>,
): EditGroup[] {
  const groups: EditGroup[] = [];
  for (const { node, start, end } of nodesIn(text, tree)) {
    const link = (edits: Edit[]) => groups.push({ edits, link: true });
    switch (node.type) {
      case "link":
        // An autolink (`<https://…>`, a bare URL) shows itself.
        if (text[start] === "[") link(linkEdits(text, node, node.url, { start, end }));
        break;
      case "linkReference": {
        const url = definitions.get(node.identifier);
        if (url !== undefined) link(linkEdits(text, node, url, { start, end }));
        break;
      }
      case "image":
      case "imageReference": {
        const url = node.type === "image" ? node.url : definitions.get(node.identifier);
        const shown = formatShownLink(showLink(node.alt ?? "", url ?? ""));
        if (url !== undefined) link([{ start, end, text: shown }]);
        break;
      }
      case "code":
      case "inlineCode":
      case "html": {
        const source = text.slice(start, end);
        const defused = defuseLinks(source, definitions);
        if (defused !== source)
          groups.push({ edits: [{ start, end, text: defused }], link: false });
        break;
      }
    }
  }
  return groups;
}

const keyOf = (edit: Edit) => `${edit.start}:${edit.end}:${edit.text}`;

/**
 * `[text](url)` as `text (url)`, or the target alone when the text is empty or the target; what
 * the text holds (emphasis, code, images) keeps edits of its own.
 */
function linkEdits(
  text: string,
  link: Link | LinkReference,
  url: string,
  { start, end }: { start: number; end: number },
): Edit[] {
  const textStart = link.children[0]?.position?.start.offset ?? start + 1;
  const textEnd = link.children.at(-1)?.position?.end.offset ?? start + 1;
  const shown = showLink(text.slice(textStart, textEnd), url);
  const plain = link.children.every((child) => child.type === "text");
  if (plain && (shown.text === "" || shown.target === "")) {
    return [{ start, end, text: formatShownLink(shown) }];
  }
  return [
    { start, end: textStart, text: "" },
    { start: textEnd, end, text: shown.target === "" ? "" : ` (${shown.target})` },
  ];
}

/**
 * Link syntax no tree vouches for, made to show its target to any reader: a `]` that joins a link
 * gets a space after it, and a label the note defines gets ` (url)` after it.
 */
export function defuseLinks(text: string, definitions: Map<string, string>): string {
  // A hostile chunk can repeat one label thousands of times: each is looked up once.
  const suffixes = new Map<string, string>();
  const showLabel = (match: string, label: string | undefined, at: number) => {
    if (label === undefined) return match;
    let suffix = suffixes.get(label);
    if (suffix === undefined) {
      const target = showLink("", definitions.get(identifierOf(label)) ?? "").target;
      suffix = target === "" ? "" : ` (${target})`;
      suffixes.set(label, suffix);
    }
    return suffix === "" || text.startsWith(suffix, at + match.length) ? match : match + suffix;
  };
  const labelled = definitions.size === 0 ? text : text.replace(LABEL, showLabel);
  return labelled.replace(JOIN, (match) => (match === "]" ? "] " : match));
}

/** Whether text may hold a link not read yet: a `]` that joins one, or any definition. */
export function mayHoldLinks(text: string, definitions: Map<string, string>): boolean {
  if (definitions.size > 0) return true;
  for (const [match] of text.matchAll(JOIN)) if (match === "]") return true;
  return false;
}

/** Applies edits that do not overlap, in one pass. */
export function applyEdits(source: string, edits: Edit[]): string {
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
