import { ErrorCode, type WebClient } from "@slack/web-api";
import { type SlackFile, slackFileSchema } from "./recording-file.ts";

/**
 * The bot's reads of message history, which nothing a person waits for depends on: a
 * mention of a recording the bot never saw, and the modal's recent recordings. Slack may
 * ration them (src/slack/rate-budget/history-rule.ts: a distributed app gets one read a
 * minute and 15 messages); a read refused for that is told apart (`busy`) so the person
 * hears one sentence instead of nothing.
 */

/** A message as {@link readMessage} reads it. */
export interface ReadMessage {
  text: string | undefined;
  user: string | undefined;
  botId: string | undefined;
  /** Its files that read as Slack file objects (stubs and hidden files included). */
  files: SlackFile[];
}

/** What a read of the message at a ts found: it, nothing readable, or no read allowed now. */
export type MessageRead =
  | { kind: "read"; message: ReadMessage }
  | { kind: "unreadable" }
  | { kind: "busy" };

/** Messages of the channel a modal looks through for recent recordings, at most. */
const RECENT_MESSAGES = 100;

/**
 * The message at `ts` (`conversations.replies` with `inclusive`: a thread's parent, or any
 * message), validated. `SlackDirectory.message`.
 */
export async function readMessage(
  client: WebClient,
  channel: string,
  ts: string,
): Promise<MessageRead> {
  try {
    const result = await client.conversations.replies({ channel, ts, limit: 1, inclusive: true });
    const found = result.messages?.find((m) => m.ts === ts);
    if (found === undefined) return { kind: "unreadable" };
    const message = {
      text: found.text,
      user: found.user,
      botId: found.bot_id,
      files: filesOf(found),
    };
    return { kind: "read", message };
  } catch (error) {
    return { kind: isRateLimited(error) ? "busy" : "unreadable" };
  }
}

/**
 * The files of the channel's latest messages (up to 100; fewer where Slack rations the
 * read), newest first, as Slack describes them (validated); none when the bot cannot read
 * the channel's history, and `busy` when the read was refused for its rate.
 * `SlackDirectory.recentFiles`.
 */
export async function recentFiles(
  client: WebClient,
  channel: string,
): Promise<{ files: SlackFile[]; busy: boolean }> {
  try {
    const history = await client.conversations.history({ channel, limit: RECENT_MESSAGES });
    return { files: (history.messages ?? []).flatMap(filesOf), busy: false };
  } catch (error) {
    return { files: [], busy: isRateLimited(error) };
  }
}

/** A call refused for its rate: by Slack (429), or by the budget before it reached Slack. */
function isRateLimited(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === ErrorCode.RateLimitedError;
}

/** A message's files that read as Slack file objects. */
function filesOf(message: { files?: unknown[] }): SlackFile[] {
  return (message.files ?? []).flatMap((raw) => {
    const file = slackFileSchema.safeParse(raw);
    return file.success ? [file.data] : [];
  });
}
