import { z } from "zod";

/**
 * Block Kit as a terminal shows it: what the bot really sent (messages, modals, ephemeral
 * answers), one block after another, inputs as brackets, buttons as `[Label]`. Unknown
 * blocks and elements are named, never dropped, so nothing the bot sent is hidden.
 */

/**
 * How to show an id: a member's name for `<@U…>` and a users_select's initial user, a
 * channel's name for `<#C…>`; undefined shows the id.
 */
export type NameOf = (id: string) => string | undefined;

/** Options a select shows before "…": Slack's language list alone has 25. */
const SHOWN_OPTIONS = 4;

const text = z.looseObject({ type: z.string(), text: z.string() });
const option = z.looseObject({ text, value: z.string().optional() });
const element = z.looseObject({
  type: z.string(),
  text: text.optional(),
  placeholder: text.optional(),
  initial_value: z.string().optional(),
  initial_user: z.string().optional(),
  initial_option: option.optional(),
  initial_options: z.array(option).optional(),
  options: z.array(option).optional(),
  filetypes: z.array(z.string()).optional(),
  multiline: z.boolean().optional(),
  url: z.string().optional(),
  alt_text: z.string().optional(),
});
const block = z.looseObject({
  type: z.string(),
  block_id: z.string().optional(),
  text: z.union([text, z.string()]).optional(),
  fields: z.array(text).optional(),
  accessory: element.optional(),
  elements: z.array(z.unknown()).optional(),
  label: text.optional(),
  element: element.optional(),
  optional: z.boolean().optional(),
  hint: text.optional(),
  alt_text: z.string().optional(),
});
const view = z.looseObject({
  type: z.string(),
  title: text.optional(),
  submit: text.nullish(),
  close: text.nullish(),
  blocks: z.array(z.unknown()).default([]),
});

type Element = z.infer<typeof element>;

/** Slack's mrkdwn as plain terminal text: mentions by name, links as "label (url)". */
export function mrkdwnText(source: string, nameOf: NameOf = () => undefined): string {
  return source
    .replace(/<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g, (_, id: string) => `@${nameOf(id) ?? id}`)
    .replace(
      /<#([CGD][A-Z0-9]+)(?:\|([^>]*))?>/g,
      (_, id: string, name?: string) => `#${name || nameOf(id) || id}`,
    )
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, "@$1")
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, "$2 ($1)")
    .replace(/<(https?:[^>]+)>/g, "$1")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

/** The lines of a list of blocks (a message's or a view's). */
export function blocksText(blocks: readonly unknown[], nameOf?: NameOf): string[] {
  return blocks.flatMap((raw) => {
    const parsed = block.safeParse(raw);
    return parsed.success
      ? blockLines(parsed.data, nameOf)
      : ["[a block the renderer cannot read]"];
  });
}

/** A modal (or Home tab) as a framed box: title, blocks, and its submit and close buttons. */
export function viewText(raw: unknown, nameOf?: NameOf): string[] {
  const parsed = view.safeParse(raw);
  if (!parsed.success) return ["[a view the renderer cannot read]"];
  const v = parsed.data;
  const title = v.title?.text ?? (v.type === "home" ? "Home tab" : "(untitled)");
  const buttons = [v.submit?.text, v.close?.text].filter((b) => b !== undefined);
  return [
    `┌─ ${v.type === "modal" ? "Modal" : v.type}: ${title}`,
    ...blocksText(v.blocks, nameOf).map((line) => `│ ${line}`),
    `└─ ${buttons.map((b) => `[${b}]`).join(" ")}`,
  ];
}

function blockLines(b: z.infer<typeof block>, nameOf?: NameOf): string[] {
  const shown = (t: z.infer<typeof text>) =>
    t.type === "mrkdwn" ? mrkdwnText(t.text, nameOf) : t.text;
  switch (b.type) {
    case "header":
      return typeof b.text === "object" ? [`== ${b.text.text} ==`] : [];
    case "section": {
      const lines = typeof b.text === "object" ? shown(b.text).split("\n") : [];
      for (const field of b.fields ?? []) lines.push(shown(field));
      if (b.accessory !== undefined) lines.push(elementText(b.accessory, nameOf));
      return lines;
    }
    case "markdown":
      return typeof b.text === "string" ? mrkdwnText(b.text, nameOf).split("\n") : [];
    case "context":
      return [contextText(b.elements ?? [], nameOf)];
    case "divider":
      return ["────────────────────────────────"];
    case "actions":
      return [
        elementsOf(b.elements ?? [])
          .map((e) => elementText(e, nameOf))
          .join(" "),
      ];
    case "input":
      return inputLines(b, nameOf);
    case "image":
      return [`[image: ${b.alt_text ?? ""}]`];
    case "rich_text":
      return [richText(b.elements ?? [])];
    default:
      return [`[${b.type} block]`];
  }
}

function inputLines(b: z.infer<typeof block>, nameOf?: NameOf): string[] {
  const label = `${b.label?.text ?? ""}${b.optional === true ? " (optional)" : ""}:`;
  const lines = [b.element === undefined ? label : `${label} ${elementText(b.element, nameOf)}`];
  if (b.hint !== undefined) lines.push(`    ${b.hint.text}`);
  return lines;
}

/** One interactive element in brackets: what it asks for and what it holds now. */
function elementText(e: Element, nameOf?: NameOf): string {
  const hint = e.placeholder?.text;
  const all = (e.options ?? []).map((o) => o.text.text);
  const more = all.length > SHOWN_OPTIONS ? ` | … ${all.length - SHOWN_OPTIONS} more` : "";
  const choices = all.slice(0, SHOWN_OPTIONS).join(" | ") + more;
  const chosen = new Set([e.initial_option, ...(e.initial_options ?? [])].map((o) => o?.value));
  switch (e.type) {
    case "button":
      return `[${e.text?.text ?? "button"}]`;
    case "plain_text_input":
      return `[${e.initial_value ?? `✎ ${hint ?? "text"}`}${e.multiline === true ? " …" : ""}]`;
    case "users_select":
      return `[${e.initial_user === undefined ? `👤 ${hint ?? "a person"}` : `@${nameOf?.(e.initial_user) ?? e.initial_user}`} ▾]`;
    case "multi_users_select":
      return `[👥 ${hint ?? "people"} ▾]`;
    case "conversations_select":
      return `[# ${hint ?? "a conversation"} ▾]`;
    case "static_select":
      return `[${e.initial_option?.text.text ?? hint ?? "choose"} ▾ ${choices}]`;
    case "checkboxes":
    case "radio_buttons":
      return (e.options ?? [])
        .map((o) => `(${chosen.has(o.value) ? "x" : " "}) ${o.text.text}`)
        .join("  ");
    case "file_input":
      return `[📎 a file${e.filetypes === undefined ? "" : `: ${e.filetypes.join(", ")}`}]`;
    default:
      return `[${e.type}]`;
  }
}

const contextElement = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  alt_text: z.string().optional(),
});

function contextText(elements: readonly unknown[], nameOf?: NameOf): string {
  return elements
    .map((raw) => {
      const parsed = contextElement.safeParse(raw);
      if (!parsed.success) return "";
      const e = parsed.data;
      if (e.type === "mrkdwn") return mrkdwnText(e.text ?? "", nameOf);
      if (e.type === "plain_text") return e.text ?? "";
      return e.type === "image" ? `[image: ${e.alt_text ?? ""}]` : "";
    })
    .filter((t) => t !== "")
    .join(" · ");
}

function elementsOf(elements: readonly unknown[]): Element[] {
  return elements.flatMap((raw) => {
    const parsed = element.safeParse(raw);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Rich text, flattened to its words: the bot sends none, people's messages do. */
function richText(elements: readonly unknown[]): string {
  const words: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    const n = node as { text?: unknown; elements?: unknown };
    if (typeof n.text === "string") words.push(n.text);
    if (Array.isArray(n.elements)) n.elements.forEach(walk);
  };
  elements.forEach(walk);
  return words.join("");
}
