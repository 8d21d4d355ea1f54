import type { KnownBlock, MessageMetadata } from "@slack/types";

/** A message's content: blocks, and the plain `text` Slack shows in notifications. */
export interface MessageContent {
  text: string;
  blocks: KnownBlock[];
}

/** A message that carries our metadata, so a resumed runner can find it in the thread. */
export interface TaggedMessageContent extends MessageContent {
  metadata: MessageMetadata;
}
