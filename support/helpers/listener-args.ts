import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  MessageShortcut,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from "@slack/bolt";
import { vi } from "vitest";
import { type Job, SINGLE_INSTALL } from "../../src/jobs/index.ts";
import { runAsInstall } from "../../src/slack/installs/request-tenant.ts";
import type { ListenerDeps } from "../../src/slack/listeners/deps.ts";
import { registerActions } from "../../src/slack/listeners/index.ts";
import type { Role } from "../../test/fixtures/slack-payloads/index.ts";
import { blockActionPayload } from "../fake-slack/slack-payloads.ts";
import { FILE_HOST } from "./fake-web-client.ts";
import { ALICE, BOT, BOT_ID, CHANNEL, type ListenerKit, TEAM } from "./listener-kit.ts";

export * from "./listener-kit.ts";

/**
 * Builders for calling listeners directly, as Bolt would, without HTTP (the shape of
 * slack-samples/bolt-ts-starter-template tests/helpers.ts): a fake `ack`, and the
 * arguments of each kind of listener over a {@link ListenerKit} (see listener-kit.ts).
 */

/** The ids a published fixture's roles map to: this workspace's, Alice acting. */
export function fixtureIds(
  extra: Partial<Record<Role, string>> = {},
): Partial<Record<Role, string>> {
  return {
    team: TEAM,
    channel: CHANNEL,
    dm: "D0ALICEDM1",
    user: ALICE,
    bot: BOT,
    botId: BOT_ID,
    app: "A0FAKEAPP",
    fileHost: FILE_HOST,
    ...extra,
  };
}

/**
 * Runs `fn` (a listener called with the builders' arguments) as Bolt runs every listener:
 * inside the request's tenant, which the app's middleware sets from Bolt's context
 * (request-tenant.ts). Default: this workspace, the single-token mode's install.
 */
export function asRequest<T>(fn: () => T, teamId = TEAM, install = SINGLE_INSTALL): T {
  return runAsInstall(install, fn, teamId);
}

/** A fresh `ack`, recording what the listener answered Slack with. */
export function fakeAck() {
  return vi.fn(async (_response?: unknown): Promise<void> => {});
}

type CommandArgs = AllMiddlewareArgs & SlackCommandMiddlewareArgs;
type EventArgs<T extends string> = AllMiddlewareArgs & SlackEventMiddlewareArgs<T>;
type ActionArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction>;
type ViewArgs = AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>;
type ShortcutArgs = AllMiddlewareArgs & SlackShortcutMiddlewareArgs<MessageShortcut>;

/** What Bolt passes every listener besides the payload. */
function common(kit: ListenerKit) {
  return {
    client: kit.client,
    context: { teamId: TEAM, botUserId: BOT, botId: BOT_ID, isEnterpriseInstall: false },
    logger: { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() },
    next: vi.fn(async () => {}),
    say: vi.fn(async () => ({ ok: true })),
    respond: vi.fn(async () => ({ ok: true })),
  };
}

/** Payloads are Slack's JSON, not the SDK's declared types: cast once, here. */
function asArgs<T>(args: Record<string, unknown>): T {
  return args as unknown as T;
}

/** A slash command's arguments: `fields` is the parsed form Slack posts. */
export function buildCommandArgs(
  kit: ListenerKit,
  fields: Record<string, unknown>,
  overrides: { ack?: ReturnType<typeof fakeAck> } = {},
): CommandArgs {
  const ack = overrides.ack ?? fakeAck();
  return asArgs({ ...common(kit), ack, command: fields, payload: fields, body: fields });
}

/** An Events API delivery's arguments: `body` is the `event_callback` envelope. */
export function buildEventArgs<T extends string>(
  kit: ListenerKit,
  body: Record<string, unknown>,
): EventArgs<T> {
  const event = body.event;
  return asArgs({ ...common(kit), event, payload: event, message: event, body });
}

/** A `block_actions` click's arguments. */
export function buildActionArgs(
  kit: ListenerKit,
  body: Record<string, unknown>,
  overrides: { ack?: ReturnType<typeof fakeAck> } = {},
): ActionArgs {
  const ack = overrides.ack ?? fakeAck();
  const action = Array.isArray(body.actions) ? body.actions[0] : undefined;
  return asArgs({ ...common(kit), ack, body, action, payload: action });
}

/** A shortcut's arguments (`message_action`): `body`, `shortcut` and `payload` are one. */
export function buildShortcutArgs(
  kit: ListenerKit,
  body: Record<string, unknown>,
  overrides: { ack?: ReturnType<typeof fakeAck> } = {},
): ShortcutArgs {
  const ack = overrides.ack ?? fakeAck();
  return asArgs({ ...common(kit), ack, body, shortcut: body, payload: body });
}

/** A `view_submission`'s arguments. */
export function buildViewArgs(
  kit: ListenerKit,
  body: Record<string, unknown>,
  overrides: { ack?: ReturnType<typeof fakeAck> } = {},
): ViewArgs {
  const ack = overrides.ack ?? fakeAck();
  return asArgs({ ...common(kit), ack, body, view: body.view, payload: body.view });
}

/**
 * The button handlers `listeners/index.ts` registers, by action id: tests the wiring (which
 * job command each button runs) without Bolt.
 */
export function actionHandlers(
  deps: ListenerDeps,
): Map<string, (args: ActionArgs) => Promise<void>> {
  const handlers = new Map<string, (args: ActionArgs) => Promise<void>>();
  const app = {
    action: (id: string, handler: (args: ActionArgs) => Promise<void>) => {
      handlers.set(id, handler);
    },
  };
  // Only `app.action` is called by this surface's register().
  registerActions(app as unknown as App, deps);
  return handlers;
}

/** A click on one of a job's status-message buttons, as Slack sends it. */
export function clickOn(
  job: Job,
  actionId: string,
  user: string,
  options: { channel?: string; messageTs?: string; triggerId?: string } = {},
): Record<string, unknown> {
  return blockActionPayload({
    actionId,
    value: job.id,
    user,
    teamId: TEAM,
    channel: options.channel ?? job.origin.channelId,
    messageTs: options.messageTs ?? job.statusTs ?? job.origin.threadTs,
    threadTs: job.origin.threadTs,
    ...(options.triggerId === undefined ? {} : { triggerId: options.triggerId }),
  });
}
