import type {
  ChatGetPermalinkArguments,
  ChatPostEphemeralArguments,
  ChatPostMessageArguments,
  ConversationsHistoryArguments,
  ConversationsMembersArguments,
  ConversationsRepliesArguments,
  FilesInfoArguments,
  UsersInfoArguments,
  ViewsOpenArguments,
  ViewsPublishArguments,
} from "@slack/web-api";
import { WebAPIPlatformError } from "@slack/web-api";
import { MockAgent } from "undici";
import { vi } from "vitest";

/**
 * A Slack Web API client for listener unit tests: each method a listener (or the real
 * `SlackDirectory` under it) calls is a `vi.fn` that records its arguments and answers as
 * Slack documents it, from a small in-memory workspace. No HTTP: file downloads go to an
 * undici `MockAgent` serving the same workspace's bytes.
 */

/** Slack's file host in the fake workspace (fixtures' `fileHost` role); Slack's own is files.slack.com. */
export const FILE_HOST = "https://files.slack.test";

/** A message as `conversations.history` and `conversations.replies` list it. */
export interface StoredMessage {
  ts: string;
  text: string;
  user: string;
  thread_ts?: string;
  files?: Record<string, unknown>[];
}

/** What the fake workspace knows; tests change it before calling a listener. */
export interface FakeWorkspace {
  teamId: string;
  botUserId: string;
  botId: string;
  /** `users.info` user objects by id. */
  users: Map<string, Record<string, unknown>>;
  /** `conversations.members` by conversation (the bot included where it is a member). */
  members: Map<string, string[]>;
  /** `files.info` file objects by id. */
  files: Map<string, Record<string, unknown>>;
  /** Bytes served at a file URL's path on {@link FILE_HOST}. */
  downloads: Map<string, Uint8Array>;
  /** Messages by conversation, oldest first. */
  messages: Map<string, StoredMessage[]>;
}

/** A `users.info` user object, with the fields of Slack's published example. */
export function slackUser(
  id: string,
  realName: string,
  options: {
    locale?: string;
    teamId?: string;
    is_admin?: boolean;
    is_restricted?: boolean;
    is_ultra_restricted?: boolean;
  } = {},
): Record<string, unknown> {
  const name = realName.toLowerCase().replace(/\s+/g, ".");
  return {
    id,
    team_id: options.teamId ?? "T0FAKE",
    name,
    deleted: false,
    real_name: realName,
    tz: "Asia/Ho_Chi_Minh",
    profile: { real_name: realName, display_name: name, real_name_normalized: realName },
    is_admin: options.is_admin ?? false,
    is_owner: false,
    is_primary_owner: false,
    is_restricted: options.is_restricted ?? false,
    is_ultra_restricted: options.is_ultra_restricted ?? false,
    is_bot: false,
    ...(options.locale === undefined ? {} : { locale: options.locale }),
  };
}

/** The error `@slack/web-api` throws for an `{ ok: false, error }` answer. */
export function platformError(code: string): WebAPIPlatformError {
  return new WebAPIPlatformError({ ok: false, error: code });
}

let lastTs = 1_700_000_000_000_000n;

/** A fresh message ts, strictly increasing. */
export function nextTs(): string {
  lastTs += 100n;
  const text = lastTs.toString();
  return `${text.slice(0, -6)}.${text.slice(-6)}`;
}

/** The fake client: the Web API methods listeners and `SlackDirectory` use. */
export function createFakeWebClient(ws: FakeWorkspace) {
  const post = (channel: string, message: Omit<StoredMessage, "ts">) => {
    const ts = nextTs();
    const list = ws.messages.get(channel) ?? [];
    list.push({ ts, ...message });
    ws.messages.set(channel, list);
    return ts;
  };
  return {
    auth: {
      test: vi.fn(async () => ({
        ok: true,
        url: "https://fake-workspace.slack.com/",
        team: "Fake Workspace",
        user: "meeting-notes",
        team_id: ws.teamId,
        user_id: ws.botUserId,
        bot_id: ws.botId,
        is_enterprise_install: false,
      })),
    },
    users: {
      info: vi.fn(async (args: UsersInfoArguments) => {
        const user = ws.users.get(args.user);
        if (user === undefined) throw platformError("user_not_found");
        return { ok: true, user };
      }),
    },
    conversations: {
      // `is_member` is the token's own user's (the bot's), as Slack documents it.
      info: vi.fn(async (args: { channel: string }) => {
        const members = ws.members.get(args.channel);
        if (members === undefined) throw platformError("channel_not_found");
        return {
          ok: true,
          channel: { id: args.channel, is_member: members.includes(ws.botUserId) },
        };
      }),
      members: vi.fn(async (args: ConversationsMembersArguments) => {
        const members = ws.members.get(args.channel);
        if (members === undefined) throw platformError("channel_not_found");
        return { ok: true, members, response_metadata: { next_cursor: "" } };
      }),
      history: vi.fn(async (args: ConversationsHistoryArguments) => {
        const messages = [...(ws.messages.get(args.channel) ?? [])].reverse();
        return { ok: true, messages: messages.slice(0, args.limit ?? 100), has_more: false };
      }),
      replies: vi.fn(async (args: ConversationsRepliesArguments) => {
        const all = ws.messages.get(args.channel) ?? [];
        const thread = all.filter((m) => m.ts === args.ts || m.thread_ts === args.ts);
        if (thread.length === 0) throw platformError("thread_not_found");
        return { ok: true, messages: thread, has_more: false };
      }),
    },
    files: {
      info: vi.fn(async (args: FilesInfoArguments) => {
        const file = ws.files.get(args.file);
        if (file === undefined) throw platformError("file_not_found");
        return { ok: true, file, comments: [], response_metadata: { next_cursor: "" } };
      }),
    },
    chat: {
      postMessage: vi.fn(async (args: ChatPostMessageArguments) => {
        const text = "text" in args && typeof args.text === "string" ? args.text : "";
        const threadTs = typeof args.thread_ts === "string" ? args.thread_ts : undefined;
        const message = { text, user: ws.botUserId };
        const ts = post(
          args.channel,
          threadTs === undefined ? message : { ...message, thread_ts: threadTs },
        );
        return {
          ok: true,
          channel: args.channel,
          ts,
          message: { ...message, ts, bot_id: ws.botId },
        };
      }),
      postEphemeral: vi.fn(async (_args: ChatPostEphemeralArguments) => ({
        ok: true,
        message_ts: nextTs(),
      })),
      getPermalink: vi.fn(async (args: ChatGetPermalinkArguments) => ({
        ok: true,
        channel: args.channel,
        permalink: `https://fake-workspace.slack.com/archives/${args.channel}/p${args.message_ts.replace(".", "")}`,
      })),
    },
    views: {
      open: vi.fn(async (args: ViewsOpenArguments) => ({
        ok: true,
        view: { ...args.view, id: "V0OPENED01", team_id: ws.teamId },
      })),
      publish: vi.fn(async (args: ViewsPublishArguments) => ({
        ok: true,
        view: { ...args.view, id: "V0HOME0001", team_id: ws.teamId },
      })),
    },
  };
}
export type FakeWebClient = ReturnType<typeof createFakeWebClient>;

/**
 * File downloads as Slack's file host answers them: the workspace's bytes at a known path
 * (with the bearer token required, as Slack does), 404 otherwise. Nothing reaches the net.
 */
export function createFileHost(ws: FakeWorkspace, botToken: string): MockAgent {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  agent
    .get(FILE_HOST)
    .intercept({ path: () => true, method: "GET" })
    .reply(({ path, headers }) => {
      const auth = new Headers(headers as Record<string, string>).get("authorization");
      const bytes = ws.downloads.get(path);
      if (auth !== `Bearer ${botToken}`) {
        // What Slack answers a file URL without the token: 200 with its sign-in page.
        const html = { headers: { "content-type": "text/html" } };
        return { statusCode: 200, data: "<html>sign in</html>", responseOptions: html };
      }
      if (bytes === undefined) return { statusCode: 404, data: "not found" };
      return { statusCode: 200, data: Buffer.from(bytes) };
    })
    .persist();
  return agent;
}
