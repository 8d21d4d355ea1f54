import type { KnownBlock, MarkdownBlock } from "@slack/types";
import { METADATA_EVENT_TYPE } from "../ids.ts";
import { type Locale, t } from "../messages/index.ts";
import { mentionPeople, neutralizeMentions, type Person } from "../text/index.ts";
import { context } from "./block-kit.ts";
import { SLACK_LIMITS } from "./limits.ts";
import type { TaggedMessageContent } from "./message-content.ts";

export interface NotePartOptions {
  /** 0-based, like the runner's `postedParts` and the gateway's `findDelivered`. */
  index: number;
  total: number;
  jobId: string;
  /** Which delivery of the job's note (a Regenerate makes a new one): parts of older ones don't count. */
  delivery: number;
  locale: Locale;
  /** Speakers named by picking a member: their names become mentions of them. */
  people?: readonly Person[];
}

/**
 * One message of the note: the part's Markdown in a `markdown` block (mentions neutralised:
 * the note comes from the recording and must not ping anyone), "Part 2 of 3" when there are
 * several, and metadata naming the job and the part, by which a resumed runner sees which
 * parts are already in the thread. The part comes from `splitMarkdown`, whose default size
 * keeps it within Slack's 12,000 characters; a longer one is refused here rather than
 * silently cut by Slack.
 */
export function buildNotePart(text: string, options: NotePartOptions): TaggedMessageContent {
  const { index, total, jobId, delivery, locale, people = [] } = options;
  if (!Number.isInteger(index) || index < 0 || index >= total) {
    throw new RangeError(`note part ${index} of ${total} does not exist`);
  }
  // Mentions in the text are neutralised first; then only the people picked as members in
  // the naming modal (channel setting "people named") become mentions.
  const markdown = mentionPeople(neutralizeMentions(text), people, (userId) => `<@${userId}>`);
  if (markdown.trim() === "") throw new RangeError("a note part must not be empty");
  if (markdown.length > SLACK_LIMITS.messageMarkdownChars) {
    throw new RangeError(
      `note part of ${markdown.length} characters exceeds Slack's ${SLACK_LIMITS.messageMarkdownChars}`,
    );
  }
  const block: MarkdownBlock = { type: "markdown", text: markdown };
  const blocks: KnownBlock[] = [block];
  const number = { index: index + 1, total };
  if (total > 1) blocks.push(context(t(locale, "note.part", number)));
  return {
    text: total > 1 ? t(locale, "note.fallback_part", number) : t(locale, "note.fallback"),
    blocks,
    metadata: {
      event_type: METADATA_EVENT_TYPE,
      event_payload: { job_id: jobId, kind: "note_part", delivery, part: index, total },
    },
  };
}
