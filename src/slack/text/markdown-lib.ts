import { createRequire } from "node:module";
import type { Nodes, Root } from "mdast";

type MarkdownLib = typeof import("mdast-util-from-markdown") &
  typeof import("mdast-util-to-markdown") &
  typeof import("micromark-extension-gfm") &
  typeof import("mdast-util-gfm");

const require = createRequire(import.meta.url);
let lib: MarkdownLib | undefined;
let gfmOptions: Parameters<MarkdownLib["fromMarkdown"]>[1];

/**
 * Loaded on first use: a bot that has delivered no note need not hold the parser. `require` of
 * these ES modules (no top-level await) keeps callers synchronous.
 */
export function markdownLib(): MarkdownLib {
  lib ??= {
    ...require("mdast-util-from-markdown"),
    ...require("mdast-util-to-markdown"),
    ...require("micromark-extension-gfm"),
    ...require("mdast-util-gfm"),
  } as MarkdownLib;
  return lib;
}

/** CommonMark + GFM; the options are made once, as combining them costs more than a short parse. */
export function parseGfm(text: string): Root {
  const { fromMarkdown, gfm, gfmFromMarkdown } = markdownLib();
  gfmOptions ??= { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };
  return fromMarkdown(text, gfmOptions);
}

/**
 * Every node of a tree in document order, walked without recursion (trees can be deep); nodes of
 * a `skip` type are left out with all they hold.
 */
export function* nodesOf(root: Nodes, skip?: ReadonlySet<string>): Generator<Nodes> {
  const stack: Nodes[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (skip?.has(node.type)) continue;
    yield node;
    if (!("children" in node)) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes);
  }
}

/** Link reference definitions, identifier → destination, the first of a label winning. */
export function definitionsOf(trees: Iterable<Root | undefined>): Map<string, string> {
  const definitions = new Map<string, string>();
  for (const tree of trees) {
    for (const node of tree === undefined ? [] : nodesOf(tree)) {
      if (node.type === "definition" && !definitions.has(node.identifier)) {
        definitions.set(node.identifier, node.url);
      }
    }
  }
  return definitions;
}
