export { clampMrkdwn, clampText } from "./clamp-text.ts";
export { escapeMrkdwn, safeMrkdwn } from "./escape-mrkdwn.ts";
export { formatDuration } from "./format-duration.ts";
export { mentionPeople, type Person } from "./mention-people.ts";
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
