import { createRequire } from "node:module";

/**
 * Loaded on first use, not at start: a bot that has delivered no note need not hold the parser.
 * `require` of these ES modules is synchronous (no top-level await), so callers stay synchronous.
 */
export interface MarkdownLib {
  fromMarkdown: typeof import("mdast-util-from-markdown").fromMarkdown;
  toMarkdown: typeof import("mdast-util-to-markdown").toMarkdown;
  gfm: typeof import("micromark-extension-gfm").gfm;
  gfmFromMarkdown: typeof import("mdast-util-gfm").gfmFromMarkdown;
  gfmToMarkdown: typeof import("mdast-util-gfm").gfmToMarkdown;
}

const require = createRequire(import.meta.url);
let lib: MarkdownLib | undefined;

export function markdownLib(): MarkdownLib {
  if (lib === undefined) {
    const from = require("mdast-util-from-markdown") as typeof import("mdast-util-from-markdown");
    const to = require("mdast-util-to-markdown") as typeof import("mdast-util-to-markdown");
    const micromarkGfm =
      require("micromark-extension-gfm") as typeof import("micromark-extension-gfm");
    const mdastGfm = require("mdast-util-gfm") as typeof import("mdast-util-gfm");
    lib = {
      fromMarkdown: from.fromMarkdown,
      toMarkdown: to.toMarkdown,
      gfm: micromarkGfm.gfm,
      gfmFromMarkdown: mdastGfm.gfmFromMarkdown,
      gfmToMarkdown: mdastGfm.gfmToMarkdown,
    };
  }
  return lib;
}
