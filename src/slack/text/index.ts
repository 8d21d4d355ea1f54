export { clampMrkdwn, clampText } from "./clamp-text.ts";
export { escapeMrkdwn, safeMrkdwn } from "./escape-mrkdwn.ts";
export { formatDuration } from "./format-duration.ts";
export {
  defuseBareBroadcasts,
  hasControlChars,
  neutralizeMentions,
  stripControlChars,
} from "./neutralize-mentions.ts";
export { DEFAULT_PART_CHARS, splitMarkdown } from "./split-markdown.ts";
