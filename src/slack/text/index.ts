export { clampMrkdwn, clampText } from "./clamp-text.ts";
export { isDirectMessage } from "./direct-message.ts";
export { escapeMrkdwn, safeMrkdwn } from "./escape-mrkdwn.ts";
export { findMentionableNames } from "./find-mentionable-names.ts";
export { formatDuration } from "./format-duration.ts";
export { mentionPeople, neutralizeOtherMentions, type Person } from "./mention-people.ts";
export {
  defuseBareBroadcasts,
  hasControlChars,
  neutralizeMentions,
  stripControlChars,
  stripUnsafeChars,
} from "./neutralize-mentions.ts";
export { readGlyphs } from "./read-glyphs.ts";
export { showLinkTargets } from "./show-link-targets.ts";
export { DEFAULT_PART_CHARS, splitMarkdown } from "./split-markdown.ts";
export { MESSAGE_MARKDOWN_MAX_CHARS, noteText, splitNote } from "./split-note.ts";
