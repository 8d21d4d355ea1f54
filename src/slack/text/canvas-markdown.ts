import { mentionPeople, type Person } from "./mention-people.ts";
import { neutralizeMentions } from "./neutralize-mentions.ts";

/** "The markdown content is limited to 1 MiB (1,048,576 characters)" (canvases.create docs). */
export const CANVAS_MAX_CHARS = 1_048_576;

/**
 * A note's Markdown as a canvas takes it (docs.slack.dev canvases.create: headings h1–h3,
 * lists, checklists, quotes, code, tables, links, `![](@U…)` user mentions…), nothing
 * dropped: a deeper heading becomes a bold line; an image (which a canvas would try to
 * unfurl, and which is how a canvas spells a mention) becomes a link to it. The service's
 * own mentions are neutralised first; then only `people` are mentioned.
 */
export function toCanvasMarkdown(markdown: string, people: readonly Person[]): string {
  const lines = neutralizeMentions(markdown).split("\n");
  let fenced = false;
  const converted = lines.map((line) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) return line;
    const deep = /^\s{0,3}#{4,6}\s+(.*?)\s*#*\s*$/.exec(line);
    const text = deep === undefined || deep === null ? line : `**${deep[1]}**`;
    return text.replace(/!\[([^\]]*)\]\(([^)]*)\)/g, "[$1]($2)");
  });
  return mentionPeople(converted.join("\n"), people, (userId) => `![](@${userId})`);
}
