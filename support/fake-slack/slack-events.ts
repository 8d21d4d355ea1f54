import type { FakeWorkspace } from "./fake-slack-store.ts";
import type { FakeMessage, SlackFileObject } from "./fake-slack-types.ts";
import { fileSharedEvent, fileShareMessageEvent } from "./slack-payloads.ts";

/**
 * The Events API `event`s Slack sends about messages and files in a conversation the app
 * is in (it subscribes to `message.channels`, `message.groups` and `file_shared`), its own
 * posts and uploads included: that is how a bot ends up hearing about itself.
 */

/** `channel_type` of a message event, from the conversation id's kind. */
export function channelTypeOf(channel: string): "channel" | "group" | "im" {
  if (channel.startsWith("D")) return "im";
  return channel.startsWith("G") ? "group" : "channel";
}

/**
 * The `message` event for a post of the app's own bot (`chat.postMessage`): no subtype,
 * `bot_id`, the bot's user id and `bot_profile`, in the shape of Slack's delivery kept as
 * test/fixtures/slack-payloads/event-message-bot.json (bolt-python's test of bot messages);
 * blocks, and a reply's `thread_ts` / `parent_user_id`, when the post has them.
 */
export function botMessageEvent(
  workspace: FakeWorkspace,
  message: FakeMessage,
  parentUserId: string | undefined,
): Record<string, unknown> {
  const isReply = message.thread_ts !== undefined && message.thread_ts !== message.ts;
  return {
    bot_id: workspace.botId,
    type: "message",
    ...(message.subtype !== undefined ? { subtype: message.subtype } : {}),
    text: message.text,
    user: workspace.botUserId,
    ts: message.ts,
    team: workspace.teamId,
    bot_profile: botProfile(workspace),
    ...(message.blocks !== undefined ? { blocks: message.blocks } : {}),
    ...(isReply ? { thread_ts: message.thread_ts } : {}),
    ...(isReply && parentUserId !== undefined ? { parent_user_id: parentUserId } : {}),
    channel: message.channel,
    event_ts: message.ts,
    channel_type: channelTypeOf(message.channel),
  };
}

/** The bot's profile as message events carry it. */
function botProfile(workspace: FakeWorkspace): Record<string, unknown> {
  return {
    id: workspace.botId,
    deleted: false,
    name: "meeting-notes",
    updated: 1_700_000_000,
    app_id: workspace.appId,
    icons: {
      image_36: "https://a.slack-edge.com/80588/img/plugins/app/bot_36.png",
      image_48: "https://a.slack-edge.com/80588/img/plugins/app/bot_48.png",
      image_72: "https://a.slack-edge.com/80588/img/plugins/app/service_72.png",
    },
    team_id: workspace.teamId,
  };
}

/**
 * What Slack sends when files are shared by a message (someone's upload, or the app's own
 * `files.completeUploadExternal` with a channel): `file_shared` for each file, naming the
 * sharer in `user_id` (for the app's own upload, its bot user — Bolt's ignoreSelf does not
 * read that field), then the `message` event of subtype `file_share` with the files. A
 * bot's share also carries its `bot_id`.
 */
export function shareEvents(
  workspace: FakeWorkspace,
  message: FakeMessage,
  files: SlackFileObject[],
  parentUserId: string | undefined,
): Record<string, unknown>[] {
  const user = message.user ?? workspace.botUserId;
  const [first] = files;
  if (first === undefined) return [];
  const shared = files.map((file) =>
    fileSharedEvent(file.id, { channel: message.channel, user, eventTs: message.ts }),
  );
  const event = fileShareMessageEvent(first, {
    channel: message.channel,
    user,
    text: message.text,
    ts: message.ts,
    ...(message.thread_ts !== undefined && message.thread_ts !== message.ts
      ? { thread_ts: message.thread_ts }
      : {}),
  });
  event.files = files;
  event.channel_type = channelTypeOf(message.channel);
  if (message.bot_id !== undefined) {
    // Slack's clients add `client_msg_id`; an upload through the Web API has none.
    delete event.client_msg_id;
    event.bot_id = message.bot_id;
  }
  if (event.thread_ts !== undefined && parentUserId !== undefined) {
    event.parent_user_id = parentUserId;
  }
  return [...shared, event];
}
