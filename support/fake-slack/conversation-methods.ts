import { z } from "zod";
import { boolArg, idArg, intArg, parseArgs } from "./api-args.ts";
import { type ApiMethod, PERMALINK_HOST, page, requireChannel } from "./message-helpers.ts";
import { SlackApiError } from "./slack-api-error.ts";

const memberArgs = z.object({ cursor: z.string().optional(), limit: intArg.optional() });

/** `conversations.info`. */
const info: ApiMethod = (args, store) => {
  const channel = requireChannel(store, args.channel);
  return {
    channel: {
      id: channel.id,
      name: channel.name,
      is_channel: !channel.is_private && !channel.is_im && channel.is_mpim !== true,
      is_group: channel.is_private && channel.is_mpim !== true,
      is_im: channel.is_im,
      is_mpim: channel.is_mpim === true,
      is_private: channel.is_private,
      is_member: channel.is_member,
      is_archived: false,
      // A Slack Connect channel: shared with another organisation, which hosts it.
      is_ext_shared: channel.connect !== undefined,
      ...(channel.connect === undefined ? {} : { conversation_host_id: channel.connect.teamId }),
      context_team_id: store.workspace.teamId,
    },
  };
};

/** `users.info`: `locale` only with `include_locale=true`, as Slack does. */
const usersInfo: ApiMethod = (args, store) => {
  const a = parseArgs(z.object({ user: idArg, include_locale: boolArg.optional() }), args);
  const user = store.users.get(a.user);
  if (user === undefined) throw new SlackApiError("user_not_found");
  const display = user.display_name ?? user.real_name;
  return {
    user: {
      id: user.id,
      team_id: store.workspace.teamId,
      name: user.name,
      deleted: user.deleted ?? false,
      real_name: user.real_name,
      tz: user.tz ?? "Asia/Ho_Chi_Minh",
      is_admin: user.is_admin ?? false,
      is_owner: user.is_owner ?? false,
      is_primary_owner: user.is_primary_owner ?? false,
      is_restricted: user.is_restricted ?? false,
      is_ultra_restricted: user.is_ultra_restricted ?? false,
      is_bot: user.is_bot ?? false,
      is_app_user: false,
      profile: {
        real_name: user.real_name,
        real_name_normalized: user.real_name,
        display_name: display,
        display_name_normalized: display,
        team: store.workspace.teamId,
      },
      ...(a.include_locale === true ? { locale: user.locale ?? "en-US" } : {}),
    },
  };
};

/**
 * `conversations.members`: user ids, paginated with `cursor`/`limit` (Slack's default page
 * is 100 and it recommends at most 200); the bot is listed when it is in the conversation.
 * A `limit` of 1000 or more is `invalid_limit`: "specify a limit value under 1000"
 * (https://docs.slack.dev/reference/methods/conversations.members; the Node SDK's
 * `CursorPaginationEnabled.limit`: "an integer with a max value of 999").
 */
const members: ApiMethod = (args, store) => {
  const channel = requireChannel(store, args.channel);
  const a = parseArgs(memberArgs, args);
  if (a.limit !== undefined && a.limit >= 1000) throw new SlackApiError("invalid_limit");
  const p = page(store.membersOf(channel), a.cursor, a.limit ?? 100);
  return {
    members: p.items,
    response_metadata: p.response_metadata ?? { next_cursor: "" },
  };
};

/**
 * `conversations.open` with one person's id: the bot's direct message with them, made the
 * first time and the same one after ("Opens or resumes a direct message",
 * https://docs.slack.dev/reference/methods/conversations.open: `channel.id`, and `no_op` /
 * `already_open` when it existed). Its errors: `users_list_not_supplied`, `user_not_found`,
 * `user_disabled` (a deactivated person). Only 1:1 conversations are modelled: several
 * users (a group DM) or a `channel` to resume are refused as `invalid_arguments`.
 */
const open: ApiMethod = (args, store) => {
  const a = parseArgs(
    z.object({ users: z.string().optional(), channel: z.string().optional() }),
    args,
  );
  const users = (a.users ?? "")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  if (users.length === 0) throw new SlackApiError("users_list_not_supplied");
  if (users.length > 1 || a.channel !== undefined) throw new SlackApiError("invalid_arguments");
  const userId = users[0] ?? "";
  const user = store.users.get(userId);
  if (user === undefined) throw new SlackApiError("user_not_found");
  if (user.deleted === true) throw new SlackApiError("user_disabled");
  const existing = [...store.channels.values()].find(
    (c) => c.is_im && c.members?.length === 1 && c.members[0] === userId,
  );
  if (existing !== undefined) {
    return { no_op: true, already_open: true, channel: { id: existing.id } };
  }
  const id = `D${userId.slice(1)}`.padEnd(9, "0");
  store.addChannel({
    id,
    name: userId.toLowerCase(),
    is_im: true,
    is_private: true,
    is_member: true,
    members: [userId],
  });
  return { channel: { id } };
};

/**
 * `auth.test`: who the token belongs to (Bolt calls it at start-up), in the shape of the
 * published example (https://docs.slack.dev/reference/methods/auth.test, kept in
 * test/fixtures/slack-payloads/method-auth.test.json): `url`, `team`, `user`, `team_id`,
 * `user_id`, and for a bot `bot_id`; `enterprise_id` "when working against a team within an
 * Enterprise organization"; `is_enterprise_install` for an org-wide install (its token names
 * the organisation: `team` and `team_id` are the org's unless the call names a workspace
 * with `team_id` — built, not published); `expires_in` (seconds left) for rotating tokens
 * (the SDK's AuthTestResponse declares it).
 */
const authTest: ApiMethod = (args, store, caller) => {
  const { workspace } = store;
  const installation = caller?.record.installation;
  const enterprise = caller?.tenancy.enterprise;
  const orgWide = installation?.isEnterpriseInstall === true && enterprise !== undefined;
  const forOrg = orgWide && (typeof args.team_id !== "string" || args.team_id === "");
  const botUserId = installation?.botUserId ?? workspace.botUserId;
  const isUser = caller?.record.kind === "user";
  const userId = isUser ? (installation?.installerUserId ?? botUserId) : botUserId;
  const expiresAt = caller?.record.expiresAt;
  return {
    url: forOrg
      ? `https://${enterprise.name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.enterprise.slack.test/`
      : teamUrl(workspace.domain),
    team: forOrg ? enterprise.name : (workspace.teamName ?? "Fake Workspace"),
    user: isUser
      ? (store.users.get(userId)?.name ?? userId.toLowerCase())
      : (store.users.get(botUserId)?.name ?? "meeting-notes"),
    team_id: forOrg ? enterprise.id : workspace.teamId,
    user_id: userId,
    ...(isUser ? {} : { bot_id: installation?.botId ?? workspace.botId }),
    ...(workspace.enterpriseId !== undefined ? { enterprise_id: workspace.enterpriseId } : {}),
    is_enterprise_install: installation?.isEnterpriseInstall ?? false,
    ...(expiresAt === undefined
      ? {}
      : { expires_in: Math.max(0, Math.floor((expiresAt - store.now()) / 1000)) }),
  };
};

/** A workspace's URL: the default one keeps the fake's permalink host. */
function teamUrl(domain: string | undefined): string {
  return domain === undefined ? `${PERMALINK_HOST}/` : `https://${domain}.slack.test/`;
}

/**
 * The Web API methods about conversations, users and the token (their messages are read by
 * history-methods.ts).
 */
export const conversationMethods: Record<string, ApiMethod> = {
  "conversations.info": info,
  "conversations.members": members,
  "conversations.open": open,
  "users.info": usersInfo,
  "auth.test": authTest,
};
