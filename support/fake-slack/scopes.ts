import type { FakeSlackStore } from "./fake-slack-store.ts";
import type { FakeChannel } from "./fake-slack-types.ts";
import { SlackApiError } from "./slack-api-error.ts";

/** What a method needs of the bot token: one scope, or one per kind of conversation. */
export type ScopeNeed = string | null | { byChannel: "history" | "read" };

/**
 * The bot-token scope each method of the fake requires, from the "Scopes" / "Bot token" fact
 * of its page, https://docs.slack.dev/reference/methods/<method> (e.g. …/chat.postMessage:
 * `chat:write`); `null` where the page says "No scopes required" (auth.test,
 * chat.getPermalink, views.*). The conversations methods need the scope of the
 * conversation's kind: `channels:`, `groups:` (private channels), `im:` or `mpim:`, then
 * `history` (conversations.history, conversations.replies) or `read` (conversations.info,
 * conversations.members), as their pages list all four.
 */
export const METHOD_SCOPES: Readonly<Record<string, ScopeNeed>> = {
  "auth.test": null,
  "chat.postMessage": "chat:write",
  "chat.update": "chat:write",
  "chat.postEphemeral": "chat:write",
  "chat.getPermalink": null,
  "reactions.add": "reactions:write",
  "conversations.history": { byChannel: "history" },
  "conversations.replies": { byChannel: "history" },
  "conversations.info": { byChannel: "read" },
  "conversations.members": { byChannel: "read" },
  // A 1:1 direct message, the only kind the fake opens (its page lists im:write for those).
  "conversations.open": "im:write",
  "users.info": "users:read",
  "files.info": "files:read",
  "files.list": "files:read",
  "files.delete": "files:write",
  "files.getUploadURLExternal": "files:write",
  "files.completeUploadExternal": "files:write",
  "views.open": null,
  "views.push": null,
  "views.update": null,
  "views.publish": null,
  "canvases.create": "canvases:write",
  "canvases.edit": "canvases:write",
  "canvases.access.set": "canvases:write",
  "canvases.delete": "canvases:write",
  // https://docs.slack.dev/reference/methods/functions.completeSuccess: "No scopes required".
  "functions.completeSuccess": null,
  "functions.completeError": null,
};

/** The prefix of a conversation's scopes: `channels`, `groups`, `im` or `mpim`. */
export function conversationKind(channel: FakeChannel): "channels" | "groups" | "im" | "mpim" {
  if (channel.is_im) return "im";
  if (channel.is_mpim === true) return "mpim";
  return channel.is_private ? "groups" : "channels";
}

/** The one scope this call needs, or undefined when it needs none (or cannot tell yet). */
export function neededScope(
  method: string,
  args: Record<string, unknown>,
  store: FakeSlackStore,
): string | undefined {
  const need = METHOD_SCOPES[method];
  if (need === undefined || need === null) return undefined;
  if (typeof need === "string") return need;
  const channel = typeof args.channel === "string" ? store.channel(args.channel) : undefined;
  // No such conversation: the method itself answers channel_not_found.
  return channel === undefined ? undefined : `${conversationKind(channel)}:${need.byChannel}`;
}

/**
 * Slack's `missing_scope` for a call the token's scopes do not cover: "The token used is not
 * granted the specific scope permissions required to complete this request" (every method's
 * error table), with the top-level `needed` (the scope) and `provided` (the token's scopes,
 * comma-separated) that the Web API SDK's response types declare (`needed?: string;
 * provided?: string;` in slackapi/node-slack-sdk packages/web-api/src/types/response/
 * ChatPostMessageResponse.ts and every other response type).
 */
export function scopeRefusal(
  method: string,
  args: Record<string, unknown>,
  store: FakeSlackStore,
  granted: readonly string[],
): SlackApiError | undefined {
  const needed = neededScope(method, args, store);
  if (needed === undefined || granted.includes(needed)) return undefined;
  return new SlackApiError("missing_scope").with({ needed, provided: granted.join(",") });
}
