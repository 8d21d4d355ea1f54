import { randomBytes, randomUUID } from "node:crypto";
import type { ConnectHost, SlackFileObject } from "./fake-slack-types.ts";
import { mintTriggerId } from "./triggers.ts";

/** Default team of the builders; matches `createFakeSlack`'s default. */
export const DEFAULT_TEAM_ID = "T0FAKE";

let lastMicros = 0n;

/**
 * A Slack timestamp for "now", e.g. `1718000000.123456`, after every one given before:
 * two in the same millisecond differ, as two messages of a channel do.
 */
export function nowTs(): string {
  const now = BigInt(Date.now()) * 1000n;
  lastMicros = now > lastMicros ? now : lastMicros + 1n;
  const text = lastMicros.toString();
  return `${text.slice(0, -6)}.${text.slice(-6)}`;
}

/**
 * A `trigger_id` shaped like Slack's (`<num>.<num>.<hex>`), issued now (or at `issuedAtMs`):
 * the fake refuses it 3 s after that, as Slack does (triggers.ts).
 */
export function newTriggerId(issuedAtMs?: number): string {
  return mintTriggerId(issuedAtMs);
}

/** The `user` object of interaction payloads. */
function userObject(user: string, teamId: string): Record<string, string> {
  const name = user.toLowerCase();
  return { id: user, username: name, name, team_id: teamId };
}

/**
 * The `message` event Slack sends when someone shares a file in a channel: subtype
 * `file_share`, full file objects in `files`.
 */
export function fileShareMessageEvent(
  file: SlackFileObject,
  where: { channel: string; user: string; text?: string; ts?: string; thread_ts?: string },
): Record<string, unknown> {
  const ts = where.ts ?? nowTs();
  return {
    type: "message",
    subtype: "file_share",
    text: where.text ?? "",
    files: [file],
    upload: true,
    user: where.user,
    display_as_bot: false,
    ts,
    ...(where.thread_ts !== undefined ? { thread_ts: where.thread_ts } : {}),
    client_msg_id: randomUUID(),
    channel: where.channel,
    event_ts: ts,
    channel_type: where.channel.startsWith("D") ? "im" : "channel",
  };
}

/** The `file_shared` event: ids only, the bot must call `files.info`. */
export function fileSharedEvent(
  fileId: string,
  where: { channel: string; user: string; eventTs?: string },
): Record<string, unknown> {
  return {
    type: "file_shared",
    channel_id: where.channel,
    file_id: fileId,
    user_id: where.user,
    file: { id: fileId },
    event_ts: where.eventTs ?? nowTs(),
  };
}

/** The `app_home_opened` event for the Home tab. */
export function appHomeOpenedEvent(user: string, channel = "D0FAKEHOME"): Record<string, unknown> {
  return { type: "app_home_opened", user, channel, tab: "home", event_ts: nowTs() };
}

/**
 * The installation fields of an interaction payload: `team` (with the organisation's id and
 * name for a workspace of Enterprise Grid), `enterprise` (`{id, name}` or null) and
 * `is_enterprise_install`, as Slack's payloads carry them
 * (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload).
 */
export interface InstallContext {
  /** The workspace's Enterprise Grid organisation. */
  enterprise?: { id: string; name: string };
  /** Sent to an org-wide install. */
  isEnterpriseInstall?: boolean;
  /** Default `fake-workspace`. */
  teamDomain?: string;
}

function installFields(teamId: string, input: InstallContext): Record<string, unknown> {
  const e = input.enterprise;
  return {
    team: {
      id: teamId,
      domain: input.teamDomain ?? "fake-workspace",
      ...(e !== undefined ? { enterprise_id: e.id, enterprise_name: e.name } : {}),
    },
    enterprise: e === undefined ? null : { id: e.id, name: e.name },
    is_enterprise_install: input.isEnterpriseInstall ?? false,
  };
}

/** What a button click on a bot message carries. */
export interface BlockActionInput extends InstallContext {
  actionId: string;
  value: string;
  user: string;
  channel: string;
  messageTs: string;
  triggerId?: string;
  blockId?: string;
  teamId?: string;
  /**
   * The clicker's own workspace when it is not the install's: a Slack Connect partner, whose
   * click names it in `user.team_id` while `team` stays the install's
   * (test/fixtures/slack/slack-connect.json, `blockActionsFromPartner`).
   */
  userTeamId?: string;
  responseUrl?: string;
  /** The message the button sits on, as Slack echoes it; default a minimal bot message. */
  message?: Record<string, unknown>;
  /** Set for a click inside a thread. */
  threadTs?: string;
}

/** A `block_actions` payload for a button click on a channel message. */
export function blockActionPayload(input: BlockActionInput): Record<string, unknown> {
  const teamId = input.teamId ?? DEFAULT_TEAM_ID;
  return {
    type: "block_actions",
    user: userObject(input.user, input.userTeamId ?? teamId),
    api_app_id: "A0FAKEAPP",
    token: "fake-verification-token",
    container: {
      type: "message",
      message_ts: input.messageTs,
      channel_id: input.channel,
      is_ephemeral: false,
      ...(input.threadTs !== undefined ? { thread_ts: input.threadTs } : {}),
    },
    trigger_id: input.triggerId ?? newTriggerId(),
    ...installFields(teamId, input),
    channel: { id: input.channel, name: input.channel.toLowerCase() },
    message: input.message ?? {
      type: "message",
      ts: input.messageTs,
      text: "",
      bot_id: "B0FAKEBOT",
      user: "U0FAKEBOT",
      ...(input.threadTs !== undefined ? { thread_ts: input.threadTs } : {}),
    },
    state: { values: {} },
    response_url:
      input.responseUrl ??
      `https://hooks.slack.test/actions/${teamId}/1/${randomBytes(8).toString("hex")}`,
    actions: [
      {
        action_id: input.actionId,
        block_id: input.blockId ?? "actions",
        text: { type: "plain_text", text: input.actionId, emoji: true },
        value: input.value,
        type: "button",
        action_ts: nowTs(),
      },
    ],
  };
}

/** What a message shortcut carries: who used it, on which message, where. */
export interface MessageActionInput extends InstallContext {
  callbackId: string;
  user: string;
  channel: string;
  /**
   * The message as Slack shows it in the payload ("the full structure of the message"):
   * `type`, `ts`, `user`, `text`, and `files`, `thread_ts` when it has them.
   */
  message: Record<string, unknown> & { ts: string };
  teamId?: string;
  triggerId?: string;
  /** Default a `hooks.slack.test` URL (never resolves); pass `fake.responseUrl()` to capture. */
  responseUrl?: string;
}

/**
 * A `message_action` payload: someone used a message shortcut on `message`. Shaped as the
 * published example (kept in test/fixtures/slack-payloads/interaction-message_action.json,
 * from slackapi/bolt-python tests/scenario_tests/test_shortcut.py) and the field list of
 * https://docs.slack.dev/reference/interaction-payloads/shortcuts-interaction-payload:
 * `callback_id`, `trigger_id`, `response_url`, `user`, `message`, `channel`, `team`.
 */
export function messageActionPayload(input: MessageActionInput): Record<string, unknown> {
  const teamId = input.teamId ?? DEFAULT_TEAM_ID;
  return {
    type: "message_action",
    token: "fake-verification-token",
    action_ts: nowTs(),
    ...installFields(teamId, input),
    user: { id: input.user, name: input.user.toLowerCase() },
    channel: { id: input.channel, name: input.channel.toLowerCase() },
    callback_id: input.callbackId,
    trigger_id: input.triggerId ?? newTriggerId(),
    message_ts: input.message.ts,
    message: input.message,
    response_url:
      input.responseUrl ??
      `https://hooks.slack.test/app/${teamId}/1/${randomBytes(8).toString("hex")}`,
  };
}

/**
 * A person's plain `message` event (no subtype), in a thread with `thread_ts`: what
 * `message.channels` / `message.groups` deliver for every message, a mention of the bot
 * (`<@U…>` in `text`) among them. Shaped as Slack's example on
 * https://docs.slack.dev/reference/events/message (kept, as a mention in a thread, in
 * test/fixtures/slack-payloads/event-message-mention-in-thread.json); a reply carries the
 * parent's `thread_ts` (https://docs.slack.dev/reference/events/message/message_replied).
 */
export function messageEvent(where: {
  channel: string;
  user: string;
  text: string;
  ts?: string;
  thread_ts?: string;
}): Record<string, unknown> {
  const ts = where.ts ?? nowTs();
  return {
    type: "message",
    channel: where.channel,
    user: where.user,
    text: where.text,
    ts,
    ...(where.thread_ts !== undefined ? { thread_ts: where.thread_ts } : {}),
    client_msg_id: randomUUID(),
    event_ts: ts,
    channel_type: where.channel.startsWith("G") ? "group" : "channel",
  };
}

/** What a modal submission carries. `values` is Slack's `view.state.values` shape. */
export interface ViewSubmissionInput extends InstallContext {
  callbackId: string;
  privateMetadata: string;
  /** `{ [block_id]: { [action_id]: { type, value | selected_option | … } } }` */
  values: Record<string, Record<string, Record<string, unknown>>>;
  user: string;
  viewId?: string;
  /** The workspace the app is installed in (`view.app_installed_team_id`). */
  teamId?: string;
  /**
   * The submitter's own workspace when it is not the install's (a Slack Connect partner):
   * then `team` and `user.team_id` name it, and only `view.app_installed_team_id` the
   * install (test/fixtures/slack/slack-connect.json, `viewSubmissionFromPartner`).
   */
  submitterTeamId?: string;
  triggerId?: string;
  title?: string;
  blocks?: unknown[];
}

/** A `view_submission` payload of a modal. */
export function viewSubmissionPayload(input: ViewSubmissionInput): Record<string, unknown> {
  const teamId = input.teamId ?? DEFAULT_TEAM_ID;
  const submitterTeam = input.submitterTeamId ?? teamId;
  const viewId = input.viewId ?? `V0${randomBytes(5).toString("hex").toUpperCase()}`;
  return {
    type: "view_submission",
    ...installFields(submitterTeam, input),
    user: userObject(input.user, submitterTeam),
    api_app_id: "A0FAKEAPP",
    token: "fake-verification-token",
    trigger_id: input.triggerId ?? newTriggerId(),
    view: {
      id: viewId,
      team_id: teamId,
      type: "modal",
      blocks: input.blocks ?? [],
      private_metadata: input.privateMetadata,
      callback_id: input.callbackId,
      state: { values: input.values },
      hash: `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString("hex")}`,
      title: { type: "plain_text", text: input.title ?? "Meeting notes", emoji: true },
      clear_on_close: false,
      notify_on_close: false,
      close: null,
      submit: { type: "plain_text", text: "Submit", emoji: true },
      previous_view_id: null,
      root_view_id: viewId,
      app_id: "A0FAKEAPP",
      external_id: "",
      app_installed_team_id: teamId,
      bot_id: "B0FAKEBOT",
    },
    response_urls: [],
  };
}

/** Envelope fields of an Events API delivery (`event_callback`). */
export interface EventCallbackInput {
  /** The workspace of the install the event is delivered to (its `authorizations`). */
  teamId: string;
  eventId: string;
  botUserId?: string;
  apiAppId?: string;
  /** The Enterprise Grid organisation of the workspace, if any. */
  enterpriseId?: string | undefined;
  /** Delivered to an org-wide install (`authorizations[].is_enterprise_install`). */
  isEnterpriseInstall?: boolean | undefined;
  /**
   * The event happened in a Slack Connect channel another organisation hosts: the envelope's
   * `team_id` and `enterprise_id` name that host, `authorizations` still the install.
   */
  host?: ConnectHost | undefined;
  /**
   * An event about the organisation, not one workspace (`team_access_revoked`): `team_id`
   * null, as https://api.slack.com/events/team_access_revoked shows it.
   */
  orgLevel?: boolean | undefined;
}

/**
 * The `event_callback` wrapper Slack puts around an event: the body of an HTTP delivery,
 * and the `payload` of a Socket Mode `events_api` envelope. A workspace of an Enterprise
 * Grid organisation adds `enterprise_id`; `authorizations` names the install the event is
 * delivered to ("an app installation that the event is visible to"), with
 * `is_enterprise_install` true for an org-wide one and still the workspace's `team_id` (the
 * org-wide example of https://api.slack.com/enterprise/apps/reference, kept in
 * test/fixtures/slack-payloads/event-org-wide-install.json). `team_id` is "the workspace
 * where the event occurred": in a Slack Connect channel the workspace hosting it, which may
 * be another organisation's; such an envelope is shaped as Slack's SDK fixture shows one
 * (no `context_*` fields, `is_ext_shared_channel` true: test/fixtures/slack/slack-connect.json).
 */
export function eventCallback(
  event: Record<string, unknown>,
  input: EventCallbackInput,
): Record<string, unknown> {
  const enterpriseId = input.enterpriseId ?? null;
  const orgWide = input.isEnterpriseInstall === true;
  const teamId = input.orgLevel === true ? null : input.teamId;
  const { host } = input;
  const occurred =
    host === undefined
      ? {
          team_id: teamId,
          ...(enterpriseId !== null ? { enterprise_id: enterpriseId } : {}),
          context_team_id: teamId,
          context_enterprise_id: enterpriseId,
        }
      : { team_id: host.teamId, enterprise_id: host.enterpriseId ?? null };
  return {
    token: "fake-verification-token",
    ...occurred,
    api_app_id: input.apiAppId ?? "A0FAKEAPP",
    event,
    type: "event_callback",
    event_id: input.eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: enterpriseId,
        team_id: teamId,
        user_id: input.botUserId ?? "U0FAKEBOT",
        is_bot: true,
        is_enterprise_install: orgWide,
      },
    ],
    is_ext_shared_channel: host !== undefined,
    event_context: `4-${randomBytes(24).toString("base64url")}`,
  };
}

/** Fields of a slash command; the rest get realistic defaults. */
export interface CommandInput {
  /** Default `/meeting-notes`. */
  command?: string;
  text?: string;
  user_id: string;
  channel_id: string;
  /** Default `T0FAKE`. */
  team_id?: string;
  trigger_id?: string;
  /** Default a `hooks.slack.test` URL (never resolves); pass `fake.responseUrl()` to capture. */
  response_url?: string;
  user_name?: string;
  channel_name?: string;
  team_domain?: string;
  api_app_id?: string;
  /** A workspace of an Enterprise Grid organisation: its id and name. */
  enterprise_id?: string;
  enterprise_name?: string;
  /** Sent to an org-wide install. */
  is_enterprise_install?: boolean;
}

/**
 * A slash command's fields: form-encoded over HTTP, the `payload` of a Socket Mode
 * `slash_commands` envelope.
 */
export function commandFields(input: CommandInput): Record<string, string> {
  const teamId = input.team_id ?? DEFAULT_TEAM_ID;
  return {
    token: "fake-verification-token",
    team_id: teamId,
    team_domain: input.team_domain ?? "fake-workspace",
    channel_id: input.channel_id,
    channel_name: input.channel_name ?? input.channel_id.toLowerCase(),
    user_id: input.user_id,
    user_name: input.user_name ?? input.user_id.toLowerCase(),
    command: input.command ?? "/meeting-notes",
    text: input.text ?? "",
    api_app_id: input.api_app_id ?? "A0FAKEAPP",
    is_enterprise_install: String(input.is_enterprise_install ?? false),
    // As the published example (test/fixtures/slack-payloads/command-slash.json) carries them.
    ...(input.enterprise_id !== undefined ? { enterprise_id: input.enterprise_id } : {}),
    ...(input.enterprise_name !== undefined ? { enterprise_name: input.enterprise_name } : {}),
    response_url:
      input.response_url ??
      `https://hooks.slack.test/commands/${teamId}/1/${randomBytes(8).toString("hex")}`,
    trigger_id: input.trigger_id ?? newTriggerId(),
  };
}

/** Envelope fields of an event in a Slack Connect channel that another workspace hosts. */
export interface SharedChannelEventInput {
  /** The workspace hosting the channel: the envelope's `team_id`. */
  hostTeamId: string;
  hostEnterpriseId?: string;
  /** The install the event is delivered to: its `authorizations`. */
  installTeamId: string;
  installEnterpriseId?: string;
  eventId: string;
  botUserId?: string;
  apiAppId?: string;
}

/**
 * The `event_callback` wrapper of an event from a Slack Connect channel, shaped as Slack's
 * SDK fixture shows it (slackapi/bolt-python tests/scenario_tests/
 * test_events_shared_channels.py, kept in test/fixtures/slack/app_uninstalled-slack-connect.json):
 * `team_id` and `enterprise_id` name the workspace hosting the channel, `authorizations`
 * the install the event is delivered to.
 */
export function sharedChannelEventCallback(
  event: Record<string, unknown>,
  input: SharedChannelEventInput,
): Record<string, unknown> {
  return eventCallback(event, {
    teamId: input.installTeamId,
    enterpriseId: input.installEnterpriseId,
    eventId: input.eventId,
    ...(input.botUserId === undefined ? {} : { botUserId: input.botUserId }),
    ...(input.apiAppId === undefined ? {} : { apiAppId: input.apiAppId }),
    host: {
      teamId: input.hostTeamId,
      ...(input.hostEnterpriseId === undefined ? {} : { enterpriseId: input.hostEnterpriseId }),
    },
  });
}
