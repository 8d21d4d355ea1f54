import { isRecord } from "./block-limits.ts";
import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { FakeChannel, FakeMessage, MessageMetadata } from "./fake-slack-types.ts";
import type { Tenancy, TokenRecord } from "./installations.ts";
import { SlackApiError } from "./slack-api-error.ts";

/** Host of permalinks; `.test` never resolves, so nothing can leak to a real workspace. */
export const PERMALINK_HOST = "https://fake.slack.test";

/** Who called a method: the token's record, and the tenancy that issued it. */
export interface ApiCaller {
  record: TokenRecord;
  tenancy: Tenancy;
}

/**
 * A Web API method of the fake: validated args in, the success body out (or a throw). The
 * store is the workspace the call acts in; `caller` is set for bot and user tokens.
 */
export type ApiMethod = (
  args: Record<string, unknown>,
  store: FakeSlackStore,
  caller?: ApiCaller,
) => Record<string, unknown>;

/** The channel named by `args[key]`, or Slack's `channel_not_found`. */
export function requireChannel(store: FakeSlackStore, value: unknown): FakeChannel {
  const channel = typeof value === "string" ? store.channel(value) : undefined;
  if (channel === undefined) throw new SlackApiError("channel_not_found");
  return channel;
}

/** The message at `ts` in `channel`, or Slack's `message_not_found`. */
export function requireMessage(store: FakeSlackStore, channel: string, ts: unknown): FakeMessage {
  const message = typeof ts === "string" ? store.message(channel, ts) : undefined;
  if (message === undefined) throw new SlackApiError("message_not_found");
  return message;
}

/** Validates `metadata` the way Slack does before storing it. */
export function checkMetadata(value: unknown): MessageMetadata {
  if (
    !isRecord(value) ||
    typeof value.event_type !== "string" ||
    value.event_type.length === 0 ||
    !isRecord(value.event_payload)
  ) {
    throw new SlackApiError("invalid_metadata_format");
  }
  return { event_type: value.event_type, event_payload: value.event_payload };
}

/**
 * A stored message as the Web API shows it: no `channel`, `metadata` only when asked
 * (`include_all_metadata`), and the thread summary fields on a parent with replies.
 */
export function messageOut(
  store: FakeSlackStore,
  message: FakeMessage,
  includeMetadata: boolean,
): Record<string, unknown> {
  const { channel, metadata, unfurl_links, unfurl_media, ...rest } = message;
  const out: Record<string, unknown> = { ...rest };
  if (includeMetadata && metadata !== undefined) out.metadata = metadata;
  const isParent = message.thread_ts === undefined || message.thread_ts === message.ts;
  const replies = isParent ? store.replies(channel, message.ts) : [];
  const latest = replies.at(-1);
  if (latest !== undefined) {
    const users = [...new Set(replies.map((r) => r.user).filter((u) => u !== undefined))];
    Object.assign(out, {
      thread_ts: message.ts,
      reply_count: replies.length,
      reply_users_count: users.length,
      reply_users: users,
      latest_reply: latest.ts,
    });
  }
  return out;
}

/** `https://fake.slack.test/archives/<channel>/p<ts without dot>`, threaded like Slack's. */
export function permalink(message: Pick<FakeMessage, "channel" | "ts" | "thread_ts">): string {
  const base = `${PERMALINK_HOST}/archives/${message.channel}/p${message.ts.replace(".", "")}`;
  if (message.thread_ts === undefined || message.thread_ts === message.ts) return base;
  return `${base}?thread_ts=${message.thread_ts}&cid=${message.channel}`;
}

/**
 * The thread a new reply joins: Slack files a reply to a reply under the original parent.
 */
export function threadRoot(store: FakeSlackStore, channel: string, threadTs: string): string {
  return store.message(channel, threadTs)?.thread_ts ?? threadTs;
}

/** Opaque pagination cursors, base64 like Slack's. */
export function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString("base64");
}

/** The offset in a cursor, or `invalid_cursor`. */
export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === "") return 0;
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  if (match?.[1] === undefined) throw new SlackApiError("invalid_cursor");
  return Number(match[1]);
}

/** One page of `items` with Slack's `has_more` / `response_metadata.next_cursor`. */
export function page<T>(
  items: T[],
  cursor: string | undefined,
  limit: number,
): { items: T[]; has_more: boolean; response_metadata?: { next_cursor: string } } {
  const start = decodeCursor(cursor);
  const end = start + Math.max(1, limit);
  const has_more = end < items.length;
  return {
    items: items.slice(start, end),
    has_more,
    ...(has_more ? { response_metadata: { next_cursor: encodeCursor(end) } } : {}),
  };
}
