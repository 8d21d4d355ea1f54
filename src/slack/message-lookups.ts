import type { WebClient } from "@slack/web-api";
import { type SlackFile, slackFileSchema } from "./recording-file.ts";

/** A message as {@link readMessage} reads it. */
export interface ReadMessage {
  text: string | undefined;
  user: string | undefined;
  botId: string | undefined;
  /** Its files that read as Slack file objects (stubs and hidden files included). */
  files: SlackFile[];
}

/**
 * The message at `ts` (`conversations.replies` with `inclusive`: a thread's parent, or any
 * message), validated; undefined when the bot cannot read it. `SlackDirectory.message`.
 */
export async function readMessage(
  client: WebClient,
  channel: string,
  ts: string,
): Promise<ReadMessage | undefined> {
  try {
    const result = await client.conversations.replies({ channel, ts, limit: 1, inclusive: true });
    const found = result.messages?.find((m) => m.ts === ts);
    if (found === undefined) return undefined;
    return { text: found.text, user: found.user, botId: found.bot_id, files: filesOf(found) };
  } catch {
    return undefined;
  }
}

/**
 * The files of the channel's last 100 messages, newest first, as Slack describes them
 * (validated); none when the bot cannot read the channel's history.
 * `SlackDirectory.recentFiles`.
 */
export async function recentFiles(client: WebClient, channel: string): Promise<SlackFile[]> {
  try {
    const history = await client.conversations.history({ channel, limit: 100 });
    return (history.messages ?? []).flatMap(filesOf);
  } catch {
    return [];
  }
}

/** A message's files that read as Slack file objects. */
function filesOf(message: { files?: unknown[] }): SlackFile[] {
  return (message.files ?? []).flatMap((raw) => {
    const file = slackFileSchema.safeParse(raw);
    return file.success ? [file.data] : [];
  });
}
