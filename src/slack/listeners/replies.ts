import type { WebClient } from "@slack/web-api";
import type { Logger } from "pino";
import { optional } from "../../util/optional.ts";
import type { MessageContent } from "../views/index.ts";

/**
 * How listeners answer in Slack, apart from a slash command's `response_url` (the
 * `Responder`) and a modal's ack. The job's own status message is the runner's.
 */

/** Tells one person something in a channel, only they see it; failures are only logged. */
export async function tellUser(
  client: WebClient,
  logger: Logger,
  target: { channel: string; user: string; threadTs?: string },
  content: MessageContent,
): Promise<void> {
  try {
    await client.chat.postEphemeral({
      channel: target.channel,
      user: target.user,
      text: content.text,
      blocks: content.blocks,
      ...optional("thread_ts", target.threadTs),
    });
  } catch (error) {
    logger.warn({ err: error, channel: target.channel }, "could not send an ephemeral reply");
  }
}

/** Answers in a thread, for everyone in it (a recording the bot cannot take, say). */
export async function replyInThread(
  client: WebClient,
  target: { channel: string; threadTs: string },
  content: MessageContent,
): Promise<void> {
  await client.chat.postMessage({
    channel: target.channel,
    thread_ts: target.threadTs,
    text: content.text,
    blocks: content.blocks,
  });
}

/** Tells a channel something (a settings change); failures are only logged. */
export async function announce(
  client: WebClient,
  logger: Logger,
  channel: string,
  content: MessageContent,
): Promise<void> {
  await client.chat
    .postMessage({ channel, text: content.text, blocks: content.blocks })
    .catch((error: unknown) =>
      logger.warn({ err: error, channelId: channel }, "could not announce a settings change"),
    );
}
