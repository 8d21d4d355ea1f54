import { findMentionableNames } from "./find-mentionable-names.ts";
import type { Person } from "./mention-people.ts";
import { neutralizeMentions } from "./neutralize-mentions.ts";
import { showLinkTargets } from "./show-link-targets.ts";
import { DEFAULT_PART_CHARS, splitMarkdown } from "./split-markdown.ts";

/**
 * Slack's limit on the Markdown of one message: "text: The standard markdown-formatted
 * text. Limit 12,000 characters max."
 * (https://docs.slack.dev/reference/block-kit/blocks/markdown-block, and `MarkdownBlock` in
 * @slack/types), which the Block Kit reference gives as "The cumulative limit for all
 * markdown blocks in a single payload is 12,000 characters." A note part is the only
 * `markdown` block of its message.
 */
export const MESSAGE_MARKDOWN_MAX_CHARS = 12_000;

/**
 * Marks put where a name becomes a mention while the note is rewritten: Unicode
 * noncharacters, which exist for a program's internal use and which no rewrite here reads
 * or changes. Any in the note itself are dropped first.
 */
const MARK_OPEN = "\uFDD0";
const MARK_CLOSE = "\uFDD1";
const MARKS = /[\uFDD0\uFDD1]/g;
const MARKED = /\uFDD0(\d+)\uFDD1/g;

/**
 * The note as it is posted, whole: links shown with their targets (`showLinkTargets`),
 * every mention and broadcast of its own made inert (`neutralizeMentions`), and the names
 * of `people` — in prose only, never in code or in a link (`findMentionableNames`) — made
 * mentions of them. The names are found in the note as written, where its code and links
 * can still be read, and marked; the marks become `<@U…>` once the rest is done, so no
 * rewrite can take a mention apart or make one of its own.
 */
export function noteText(markdown: string, people: readonly Person[] = []): string {
  const source = markdown.replace(MARKS, "");
  const names = findMentionableNames(source, people);
  if (names.length === 0) return neutralizeMentions(showLinkTargets(source));
  const userIds: string[] = [];
  let marked = "";
  let position = 0;
  for (const name of names) {
    let index = userIds.indexOf(name.userId);
    if (index === -1) index = userIds.push(name.userId) - 1;
    marked += `${source.slice(position, name.start)}${MARK_OPEN}${index}${MARK_CLOSE}`;
    position = name.end;
  }
  marked += source.slice(position);
  const shown = neutralizeMentions(showLinkTargets(marked));
  return shown
    .replace(MARKED, (_mark, index: string) => `<@${userIds[Number(index)]}>`)
    .replace(MARKS, "");
}

/**
 * The note's messages: `noteText` split by `splitMarkdown` into parts of at most `maxChars`
 * (default {@link DEFAULT_PART_CHARS}). Everything that can make the note longer (link
 * targets shown, mentions) is done before the split, so each part is measured as it will
 * be posted; a part over Slack's limit would be a bug here, and is refused rather than
 * posted for Slack to refuse.
 */
export function splitNote(
  markdown: string,
  people: readonly Person[] = [],
  options: { maxChars?: number } = {},
): string[] {
  const maxChars = Math.min(options.maxChars ?? DEFAULT_PART_CHARS, MESSAGE_MARKDOWN_MAX_CHARS);
  const parts = splitMarkdown(noteText(markdown, people), { maxChars });
  for (const part of parts) {
    if (part.length > MESSAGE_MARKDOWN_MAX_CHARS) {
      throw new RangeError(`a note part of ${part.length} characters is over Slack's limit`);
    }
  }
  return parts;
}
