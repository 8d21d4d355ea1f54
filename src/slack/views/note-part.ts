import type { KnownBlock, MarkdownBlock } from "@slack/types";
import { METADATA_EVENT_TYPE } from "../ids.ts";
import { type Locale, t } from "../messages/index.ts";
import { neutralizeOtherMentions, type Person } from "../text/index.ts";
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
  /** Speakers named by picking a member: the only people the part may mention. */
  people?: readonly Person[];
}

/**
 * One message of the note: the part's Markdown in a `markdown` block, "Part 2 of 3" when
 * there are several, and metadata naming the job and the part, by which a resumed runner
 * sees which parts are already in the thread. The part comes from `splitNote`, which shows
 * link targets, makes the note's own mentions inert and mentions `people` before it splits,
 * so the part is measured as posted. As a last guard every mention and broadcast but the
 * mentions of `people` is made inert here too (a no-op on `splitNote`'s parts), and a part
 * over Slack's 12,000 characters is refused rather than silently cut by Slack.
 */
export function buildNotePart(text: string, options: NotePartOptions): TaggedMessageContent {
  const { index, total, jobId, delivery, locale, people = [] } = options;
  if (!Number.isInteger(index) || index < 0 || index >= total) {
    throw new RangeError(`note part ${index} of ${total} does not exist`);
  }
  // Only the people picked as members in the naming modal (channel setting "people named")
  // may be mentioned; the note is from the recording and must not ping anyone else.
  const markdown = neutralizeOtherMentions(text, people);
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
