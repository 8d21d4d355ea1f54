import type { KnownBlock, MessageMetadata } from "@slack/types";

export interface MessageContent {
  text: string;
  blocks: KnownBlock[];
}

/** Carries our metadata, so a resumed runner can find the message in the thread. */
export interface TaggedMessageContent extends MessageContent {
  metadata: MessageMetadata;
}
