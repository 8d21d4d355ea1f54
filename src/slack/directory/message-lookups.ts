import { ErrorCode, type WebClient } from "@slack/web-api";
import { type SlackFile, slackFileSchema } from "./recording-file.ts";

// Reads of message history, which nothing a person waits for depends on. Slack may ration them
// (rate-budget/history-rule.ts); a read refused for its rate is `busy`, so the person hears why.

export interface ReadMessage {
  text: string | undefined;
  user: string | undefined;
  botId: string | undefined;
  files: SlackFile[];
}

export type MessageRead =
  | { kind: "read"; message: ReadMessage }
  | { kind: "unreadable" }
  | { kind: "busy" };

const RECENT_MESSAGES = 100;

/** The message at `ts` (`inclusive`: a thread's parent, or any message). */
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

/** The files of the channel's latest messages, newest first; none when it cannot be read. */
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

/** Refused for its rate: by Slack (429), or by the budget before it reached Slack. */
function isRateLimited(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === ErrorCode.RateLimitedError;
}

function filesOf(message: { files?: unknown[] }): SlackFile[] {
  return (message.files ?? []).flatMap((raw) => {
    const file = slackFileSchema.safeParse(raw);
    return file.success ? [file.data] : [];
  });
}
