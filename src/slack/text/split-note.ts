import { findMentionableNames } from "./find-mentionable-names.ts";
import type { Person } from "./mention-people.ts";
import { neutralizeMentions } from "./neutralize-mentions.ts";
import { showLinkTargets } from "./show-link-targets.ts";
import { DEFAULT_PART_CHARS, splitMarkdown } from "./split-markdown.ts";

/**
 * All `markdown` blocks of a message together
 * (https://docs.slack.dev/reference/block-kit/blocks/markdown-block); a note part is the only one.
 */
export const MESSAGE_MARKDOWN_MAX_CHARS = 12_000;

/** Noncharacters mark names to mention: no rewrite here reads them; any in the note are dropped. */
const MARK_OPEN = "\uFDD0";
const MARK_CLOSE = "\uFDD1";
const MARKS = /[\uFDD0\uFDD1]/g;
const MARKED = /\uFDD0(\d+)\uFDD1/g;

/**
 * Names of `people` are found in prose as written (never in code or links) and marked; the marks
 * become `<@U…>` after links are shown and mentions made inert, so no rewrite can break one.
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

/** All that lengthens the note comes before the split, so each part is measured as posted. */
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
