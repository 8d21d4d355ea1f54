import { z } from "zod";
import { boolArg, idArg, parseArgs } from "./api-args.ts";
import { checkMessageBlocks } from "./block-limits.ts";
import type { FakeMessage } from "./fake-slack-types.ts";
import {
  type ApiMethod,
  checkMetadata,
  messageOut,
  permalink,
  requireChannel,
  requireMessage,
  threadRoot,
} from "./message-helpers.ts";
import { SlackApiError } from "./slack-api-error.ts";
import { botMessageEvent } from "./slack-events.ts";

/** Slack refuses message text past this length with `msg_too_long`. */
const MAX_TEXT = 40_000;

const contentArgs = {
  text: z.string().optional(),
  blocks: z.unknown().optional(),
  attachments: z.array(z.unknown()).optional(),
  metadata: z.unknown().optional(),
};

const postArgs = z.object({
  ...contentArgs,
  thread_ts: z.string().optional(),
  reply_broadcast: boolArg.optional(),
  unfurl_links: boolArg.optional(),
  unfurl_media: boolArg.optional(),
});

/** `chat.postMessage`: stores the message (bot-authored) and answers its `ts`. */
const postMessage: ApiMethod = (args, store) => {
  const channel = requireChannel(store, args.channel);
  if (!channel.is_member) throw new SlackApiError("not_in_channel");
  const a = parseArgs(postArgs, args);
  const content = checkContent(a, true, store.strict.blockKit);
  const { workspace } = store;
  const message = store.addMessage({
    type: "message",
    channel: channel.id,
    ts: store.nextTs(),
    text: a.text ?? "",
    user: workspace.botUserId,
    bot_id: workspace.botId,
    app_id: workspace.appId,
    ...content,
    ...(a.thread_ts !== undefined ? { thread_ts: threadRoot(store, channel.id, a.thread_ts) } : {}),
    ...(a.reply_broadcast === true ? { subtype: "thread_broadcast" } : {}),
    ...(a.unfurl_links !== undefined ? { unfurl_links: a.unfurl_links } : {}),
    ...(a.unfurl_media !== undefined ? { unfurl_media: a.unfurl_media } : {}),
  });
  // Slack tells the app of its own post too (it subscribes to the channel's messages).
  const parent = store.parentUser(channel.id, message.thread_ts);
  store.onEvent(botMessageEvent(workspace, message, parent));
  return { channel: channel.id, ts: message.ts, message: messageOut(store, message, true) };
};

/**
 * `chat.update`: replaces the text; blocks, attachments and metadata are kept unless given
 * (an empty array removes blocks), as Slack documents.
 */
const update: ApiMethod = (args, store) => {
  const channel = requireChannel(store, args.channel);
  const message = requireMessage(store, channel.id, args.ts);
  if (message.bot_id !== store.workspace.botId) throw new SlackApiError("cant_update_message");
  const a = parseArgs(z.object(contentArgs), args);
  const content = checkContent(a, false, store.strict.blockKit);
  if (a.text !== undefined) message.text = a.text;
  Object.assign(message, content);
  if (Array.isArray(message.blocks) && message.blocks.length === 0) delete message.blocks;
  message.edited = { user: store.workspace.botUserId, ts: store.nextTs() };
  return {
    channel: channel.id,
    ts: message.ts,
    text: message.text,
    message: messageOut(store, message, true),
  };
};

const ephemeralArgs = z.object({ ...contentArgs, user: idArg, thread_ts: z.string().optional() });

/** `chat.postEphemeral`: kept apart from history, as only the one user sees it. */
const postEphemeral: ApiMethod = (args, store) => {
  const channel = requireChannel(store, args.channel);
  const a = parseArgs(ephemeralArgs, args);
  // Slack shows an ephemeral message only to a member of the conversation: "user_not_in_channel:
  // Intended recipient is not in the specified channel"
  // (https://docs.slack.dev/reference/methods/chat.postEphemeral).
  if (!store.membersOf(channel).includes(a.user)) throw new SlackApiError("user_not_in_channel");
  const content = checkContent(a, true, store.strict.blockKit);
  const message_ts = store.nextTs();
  store.ephemerals.push({
    channel: channel.id,
    user: a.user,
    message_ts,
    text: a.text ?? "",
    ...(content.blocks !== undefined ? { blocks: content.blocks } : {}),
    ...(a.thread_ts !== undefined ? { thread_ts: a.thread_ts } : {}),
  });
  return { message_ts };
};

/** `chat.getPermalink`. */
const getPermalink: ApiMethod = (args, store) => {
  const channel = requireChannel(store, args.channel);
  const message = requireMessage(store, channel.id, args.message_ts);
  return { channel: channel.id, permalink: permalink(message) };
};

/** `reactions.add`: records the bot's reaction on the message. */
const reactionsAdd: ApiMethod = (args, store) => {
  const channel = requireChannel(store, args.channel);
  const message = requireMessage(store, channel.id, args.timestamp);
  const { name } = parseArgs(z.object({ name: idArg }), args);
  const bot = store.workspace.botUserId;
  message.reactions ??= [];
  let reaction = message.reactions.find((r) => r.name === name);
  if (reaction === undefined) {
    reaction = { name, users: [], count: 0 };
    message.reactions.push(reaction);
  }
  if (reaction.users.includes(bot)) throw new SlackApiError("already_reacted");
  reaction.users.push(bot);
  reaction.count += 1;
  return {};
};

/** The Web API methods about messages. */
export const chatMethods: Record<string, ApiMethod> = {
  "chat.postMessage": postMessage,
  "chat.update": update,
  "chat.postEphemeral": postEphemeral,
  "chat.getPermalink": getPermalink,
  "reactions.add": reactionsAdd,
};

type Content = Pick<FakeMessage, "blocks" | "attachments" | "metadata">;

function checkContent(
  a: z.infer<z.ZodObject<typeof contentArgs>>,
  required: boolean,
  strictBlocks: boolean,
): Content {
  if (required && a.text === undefined && a.blocks === undefined && a.attachments === undefined) {
    throw new SlackApiError("no_text");
  }
  if (a.text !== undefined && a.text.length > MAX_TEXT) throw new SlackApiError("msg_too_long");
  const content: Content = {};
  if (a.blocks !== undefined) {
    checkMessageBlocks(a.blocks, strictBlocks);
    content.blocks = a.blocks as unknown[];
  }
  if (a.attachments !== undefined) content.attachments = a.attachments;
  if (a.metadata !== undefined) content.metadata = checkMetadata(a.metadata);
  return content;
}
