import type { Link, Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

/*
 * The reference reading of Markdown for the canvas tests: mdast-util-from-markdown, as
 * CommonMark alone and as CommonMark with GFM, so that what the canvas holds is checked as
 * two different readers would see it.
 */

/** The two readings of a text: CommonMark, and CommonMark with GFM. */
export function readings(markdown: string): Root[] {
  return [commonMarkReading(markdown), gfmReading(markdown)];
}

/*
 * A property run checks the same canvas with several of the functions below, each of which
 * reads it: the last few texts' trees are kept (they are only read, never changed), so a
 * text is parsed once per reading, not once per check.
 */
const commonMarkTrees = new Map<string, Root>();
const gfmTrees = new Map<string, Root>();

function remembered(trees: Map<string, Root>, markdown: string, read: () => Root): Root {
  const known = trees.get(markdown);
  if (known !== undefined) return known;
  const tree = read();
  if (trees.size >= 8) trees.delete(trees.keys().next().value as string);
  trees.set(markdown, tree);
  return tree;
}

const commonMarkReading = (markdown: string) =>
  remembered(commonMarkTrees, markdown, () => fromMarkdown(markdown));

const gfmReading = (markdown: string) =>
  remembered(gfmTrees, markdown, () =>
    fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }),
  );

/** Every node of a tree in document order, walked without recursion. */
export function nodesOf(root: Root): Nodes[] {
  const nodes: Nodes[] = [];
  const stack: Nodes[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    nodes.push(node);
    if ("children" in node) stack.push(...[...node.children].reverse());
  }
  return nodes;
}

/** What a reader of the rendered text sees, per reading: text, code, alt text, link text. */
export function visibleTexts(markdown: string): string[] {
  return readings(markdown).map((tree) => plainText(tree));
}

/**
 * A node's text as shown: its values (text, code, HTML) and alt texts, in order; blocks
 * (paragraphs, items, cells) on lines of their own.
 */
export function plainText(node: Nodes): string {
  if (node.type === "image" || node.type === "imageReference") return node.alt ?? "";
  if ("value" in node) return node.value;
  if (!("children" in node)) return "";
  const inline = PHRASING_PARENTS.has(node.type);
  return node.children.map((child) => plainText(child)).join(inline ? "" : "\n");
}

const PHRASING_PARENTS = new Set([
  "paragraph",
  "heading",
  "emphasis",
  "strong",
  "delete",
  "link",
  "linkReference",
  "tableCell",
]);

/**
 * What in a canvas Slack could turn into a mention or a hidden link, under either reading:
 * an image other than a mention of one of `allowed` (`![](@U…)`), a link or definition to
 * `@…`, `#…` or `!…`, a definition at all, raw HTML, a link whose text is not its own
 * target, and any `![` in the text that does not start an allowed mention. Empty when the
 * canvas holds only inert text and those mentions.
 */
export function canvasViolations(markdown: string, allowed: readonly string[] = []): string[] {
  const found: string[] = [];
  const stray = markdown.replace(/!\[\]\(@([A-Z0-9]+)\)/g, (mark, id: string) =>
    allowed.includes(id) ? "" : mark,
  );
  if (stray.includes("![")) found.push(`text has "![": ${excerpt(stray, stray.indexOf("!["))}`);
  for (const tree of readings(markdown)) {
    for (const node of nodesOf(tree)) {
      const problem = problemOf(node, allowed);
      if (problem !== undefined) found.push(problem);
    }
  }
  return found;
}

/** The mentions a canvas holds under the GFM reading: the users of its images. */
export function mentionsIn(markdown: string): string[] {
  return nodesOf(gfmReading(markdown)).flatMap((node) => (node.type === "image" ? [node.url] : []));
}

/**
 * The destinations of the links and images of a note as the reference reading finds them
 * (references resolved): what every reader must be able to see as text. Autolinks and
 * bare URLs are left out: they are their own text, shown as the note writes them.
 */
export function linkTargetsOf(markdown: string): string[] {
  const tree = gfmReading(markdown);
  const definitions = new Map<string, string>();
  for (const node of nodesOf(tree)) {
    if (node.type === "definition" && !definitions.has(node.identifier)) {
      definitions.set(node.identifier, node.url);
    }
  }
  return nodesOf(tree).flatMap((node) => {
    if (node.type === "link") return showsOwnTarget(node) ? [] : [node.url];
    if (node.type === "image") return [node.url];
    if (node.type === "linkReference" || node.type === "imageReference") {
      const url = definitions.get(node.identifier);
      return url === undefined ? [] : [url];
    }
    return [];
  });
}

function problemOf(node: Nodes, allowed: readonly string[]): string | undefined {
  switch (node.type) {
    case "image": {
      const id = /^@([A-Z0-9]+)$/.exec(node.url)?.[1];
      const mention = id !== undefined && allowed.includes(id) && (node.alt ?? "") === "";
      return mention ? undefined : `image to ${node.url}`;
    }
    case "imageReference":
      return `image reference [${node.identifier}]`;
    case "definition":
      return `definition [${node.identifier}]: ${node.url}`;
    case "html":
      return `raw HTML ${node.value}`;
    case "linkReference":
      return `link reference [${node.identifier}]`;
    case "link":
      if (/^\s*[@#!]/.test(node.url)) return `link to ${node.url}`;
      return showsOwnTarget(node) ? undefined : `link "${plainText(node)}" hides ${node.url}`;
    default:
      return undefined;
  }
}

/** A link whose text is its target: an autolink, a bare URL, `[url](url)`. */
function showsOwnTarget(link: Link): boolean {
  const text = plainText(link);
  return [text, `mailto:${text}`, `http://${text}`].includes(link.url);
}

function excerpt(text: string, at: number): string {
  return JSON.stringify(text.slice(Math.max(0, at - 20), at + 30));
}
