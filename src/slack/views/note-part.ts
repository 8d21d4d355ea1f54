import type { KnownBlock, MarkdownBlock } from "@slack/types";
import { METADATA_EVENT_TYPE } from "../ids.ts";
import { type Locale, t } from "../messages/catalog.ts";
import { neutralizeOtherMentions, type Person } from "../text/mention-people.ts";
import { context } from "./block-kit.ts";
import { SLACK_LIMITS } from "./limits.ts";
import type { TaggedMessageContent } from "./message-content.ts";

export interface NotePartOptions {
  index: number;
  total: number;
  jobId: string;
  /** A Regenerate makes a new delivery: parts of older ones don't count. */
  delivery: number;
  locale: Locale;
  /** Members picked in the naming modal: the only people the part may mention. */
  people?: readonly Person[];
}

/**
 * One message of the note, its metadata naming the job and part so a resumed runner sees what is
 * posted. A part over Slack's 12,000 characters is refused rather than cut silently by Slack.
 */
export function buildNotePart(text: string, options: NotePartOptions): TaggedMessageContent {
  const { index, total, jobId, delivery, locale, people = [] } = options;
  if (!Number.isInteger(index) || index < 0 || index >= total) {
    throw new RangeError(`note part ${index} of ${total} does not exist`);
  }
  // A last guard (splitNote already did it): the note must not ping anyone else.
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
