import type {
  BlockContent,
  ListItem,
  Nodes,
  PhrasingContent,
  Root,
  RootContent,
  TableRow,
} from "mdast";
import { definitionsOf } from "./markdown-lib.ts";
import { type NameFound, nameFinder, type Person } from "./mention-people.ts";
import { defuseImageMarks, neutralizeMentions } from "./neutralize-mentions.ts";
import { showLink } from "./show-link.ts";

interface Context {
  definitions: Map<string, string>;
  findNames: ((text: string) => NameFound[]) | undefined;
}

/** Schemes a link may keep when it shows its own target. */
const LINK_SCHEME = /^(?:https?|mailto):/i;
const LANGUAGE = /^[\w.+#-]{1,40}$/;

/**
 * In a canvas an image is a mention (`![](@U…)`) or an unfurl, so links and images become text by
 * `showLink`'s rule and every text is made inert; only `people` become `![](@U…)` mentions.
 */
export function toCanvasTree(root: Root, people: readonly Person[]): Root {
  const context: Context = { definitions: definitionsOf([root]), findNames: nameFinder(people) };
  return { type: "root", children: flow(root.children, context) };
}

function inertText(text: string): string {
  return defuseImageMarks(neutralizeMentions(text));
}

function flow(nodes: readonly RootContent[], context: Context): BlockContent[] {
  return nodes.flatMap((node) => block(node, context));
}

function block(node: RootContent, context: Context): BlockContent[] {
  switch (node.type) {
    case "paragraph":
      return [{ type: "paragraph", children: phrasing(node.children, context) }];
    case "heading": {
      const children = phrasing(node.children, context);
      if (node.depth <= 3) return [{ type: "heading", depth: node.depth, children }];
      return children.length === 0 ? [] : [paragraph([{ type: "strong", children }])];
    }
    case "thematicBreak":
      return [{ type: "thematicBreak" }];
    case "blockquote":
      return [{ type: "blockquote", children: flow(node.children, context) }];
    case "list":
      return [
        {
          type: "list",
          ordered: node.ordered ?? false,
          spread: node.spread ?? false,
          ...(typeof node.start === "number" ? { start: node.start } : {}),
          children: node.children.map((item) => listItem(item, context)),
        },
      ];
    case "table":
      return [
        {
          type: "table",
          align: node.align ?? null,
          children: node.children.map((row) => tableRow(row, context)),
        },
      ];
    case "code": {
      const lang = node.lang !== null && node.lang !== undefined && LANGUAGE.test(node.lang);
      return [
        { type: "code", lang: lang ? node.lang : null, meta: null, value: inertText(node.value) },
      ];
    }
    case "html":
      return node.value
        .split(/\n[ \t]*\n/)
        .map((part) =>
          part
            .split("\n")
            .map((line) => line.trim())
            .join("\n"),
        )
        .filter((part) => part !== "")
        .map((part) => paragraph([text(inertText(part))]));
    case "definition":
      return [];
    case "footnoteDefinition": {
      // Canvases have no footnotes: the note is its label, then its text.
      const label = text(inertText(`[^${node.label ?? node.identifier}]: `));
      const [first, ...rest] = flow(node.children, context);
      if (first?.type === "paragraph") return [paragraph([label, ...first.children]), ...rest];
      return [paragraph([label]), ...(first === undefined ? [] : [first]), ...rest];
    }
    case "listItem":
      return flow(node.children, context);
    default: {
      const value = plainText(node);
      return value === "" ? [] : [paragraph(withMentions(inertText(value), context))];
    }
  }
}

function listItem(item: ListItem, context: Context): ListItem {
  return {
    type: "listItem",
    spread: item.spread ?? false,
    ...(typeof item.checked === "boolean" ? { checked: item.checked } : {}),
    children: flow(item.children, context),
  };
}

function tableRow(row: TableRow, context: Context): TableRow {
  return {
    type: "tableRow",
    children: row.children.map((cell) => ({
      type: "tableCell",
      children: phrasing(cell.children, context),
    })),
  };
}

function phrasing(nodes: readonly PhrasingContent[], context: Context): PhrasingContent[] {
  return nodes.flatMap((node) => inline(node, context));
}

function inline(node: PhrasingContent, context: Context): PhrasingContent[] {
  switch (node.type) {
    case "text":
      return withMentions(inertText(node.value), context);
    case "emphasis":
    case "strong":
    case "delete":
      return [{ type: node.type, children: phrasing(node.children, context) }];
    case "inlineCode":
      return [{ type: "inlineCode", value: inertText(node.value) }];
    case "break":
      return [{ type: "break" }];
    case "link":
      if (showsOwnTarget(plainText(node), node.url)) {
        return [{ type: "link", url: node.url, title: null, children: [text(plainText(node))] }];
      }
      return shownLink(phrasing(node.children, context), plainText(node), node.url);
    case "linkReference": {
      const url = context.definitions.get(node.identifier);
      const children = phrasing(node.children, context);
      return url === undefined ? children : shownLink(children, plainText(node), url);
    }
    case "image":
      return shownLink(withMentions(inertText(node.alt ?? ""), context), node.alt ?? "", node.url);
    case "imageReference": {
      const alt = withMentions(inertText(node.alt ?? ""), context);
      const url = context.definitions.get(node.identifier);
      return url === undefined ? alt : shownLink(alt, node.alt ?? "", url);
    }
    case "footnoteReference":
      return [text(inertText(`[^${node.label ?? node.identifier}]`))];
    default:
      // Inline HTML, and anything else, as the text it is.
      return [text(inertText(plainText(node)))];
  }
}

/** The content keeps its formatting; the target is text, not a link. */
function shownLink(content: PhrasingContent[], plain: string, url: string): PhrasingContent[] {
  const shown = showLink(plain, url);
  if (shown.text === "") return [text(inertText(shown.target))];
  return shown.target === "" ? content : [...content, text(` (${inertText(shown.target)})`)];
}

function showsOwnTarget(plain: string, url: string): boolean {
  if (!LINK_SCHEME.test(url) || /[\s<>]/.test(url) || url !== inertText(url)) return false;
  return plain === url || `mailto:${plain}` === url || `http://${plain}` === url;
}

function withMentions(value: string, context: Context): PhrasingContent[] {
  const found = context.findNames?.(value) ?? [];
  if (found.length === 0) return value === "" ? [] : [text(value)];
  const nodes: PhrasingContent[] = [];
  let position = 0;
  for (const name of found) {
    if (name.start > position) nodes.push(text(value.slice(position, name.start)));
    nodes.push({ type: "image", url: `@${name.userId}`, alt: "", title: null });
    position = name.end;
  }
  if (position < value.length) nodes.push(text(value.slice(position)));
  return nodes;
}

function plainText(node: Nodes): string {
  if (node.type === "image" || node.type === "imageReference") return node.alt ?? "";
  if ("value" in node) return node.value;
  if ("children" in node) return node.children.map((child) => plainText(child)).join("");
  return "";
}

function text(value: string): PhrasingContent {
  return { type: "text", value };
}

function paragraph(children: PhrasingContent[]): BlockContent {
  return { type: "paragraph", children };
}
