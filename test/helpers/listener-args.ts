import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { pino } from "pino";
import { type Mock, vi } from "vitest";
import {
  Admission,
  defaultAdmissionLimits,
  type Job,
  JobRepository,
  JobService,
} from "../../src/jobs/index.ts";
import { slackHostsOf } from "../../src/slack/gateway/download-slack-file.ts";
import { register as registerActions } from "../../src/slack/listeners/actions/index.ts";
import type { ListenerDeps } from "../../src/slack/listeners/index.ts";
import { Permissions } from "../../src/slack/permissions.ts";
import type { Responder } from "../../src/slack/response-url.ts";
import { SlackDirectory } from "../../src/slack/slack-directory.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { blockActionPayload, DEFAULT_TEAM_ID } from "../fakes/slack/slack-payloads.ts";
import type { Role } from "../fixtures/slack-payloads/index.ts";
import {
  createFakeWebClient,
  createFileHost,
  type FakeWebClient,
  type FakeWorkspace,
  FILE_HOST,
  nextTs,
  slackUser,
} from "./fake-web-client.ts";
import { source } from "./jobs-kit.ts";

/**
 * Builders for calling listeners directly, as Bolt would, without HTTP (the shape of
 * slack-samples/bolt-ts-starter-template tests/helpers.ts): a fake `ack`, a fake Web API
 * client over a small workspace, a logger whose lines can be read, and `ListenerDeps` with
 * the real `JobService` (over a memory store), `SlackDirectory` and `Permissions`.
 */

export const TEAM = DEFAULT_TEAM_ID;
export const CHANNEL = "C0LISTEN01";
/** A channel only Bob and the bot are in. */
export const OTHER_CHANNEL = "C0OTHER001";
export const BOT = "U0FAKEBOT";
export const BOT_ID = "B0FAKEBOT";
const BOT_TOKEN = "xoxb-listener-test-token";
/** People of the workspace; all but Admin are in {@link CHANNEL}. */
export const ALICE = "U0ALICE001";
export const BOB = "U0BOB00001";
export const LAN = "U0LAN00001";
export const GUEST = "U0GUEST001";
export const ADMIN = "U0ADMIN001";
/** Starts every test clock; jobs' times are near it. */
export const NOW = Date.UTC(2025, 0, 15, 9, 0, 0);

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

/** One log line as pino writes it. */
export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A pino logger whose lines are kept, parsed, in `lines`. */
export function recordingLogger() {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: "debug" },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  return { logger, lines };
}

/** What a test holds: the deps to pass, and every fake behind them to check. */
export interface ListenerKit {
  deps: ListenerDeps;
  jobs: JobService;
  store: Store;
  workspace: FakeWorkspace;
  slack: FakeWebClient;
  client: WebClient;
  respond: Mock<Responder>;
  runner: { kick: Mock; abort: Mock; settle: Mock; discard: Mock };
  logs: LogLine[];
  clock: { now: number };
  /** Saves a job as the runner would have left it (any stage), indexed by channel and user. */
  seed(job: Job): Promise<Job>;
  /** Messages of log lines at `level` ("warn", "info", …). */
  logged(level: "info" | "warn" | "error"): string[];
  close(): Promise<void>;
}

/** A workspace with Alice (en), Lan (vi), Bob, a guest and an admin; the bot in both channels. */
export function defaultWorkspace(): FakeWorkspace {
  return {
    teamId: TEAM,
    botUserId: BOT,
    botId: BOT_ID,
    users: new Map([
      [ALICE, slackUser(ALICE, "Alice Tran", { locale: "en-US" })],
      [BOB, slackUser(BOB, "Bob Le", { locale: "en-GB" })],
      [LAN, slackUser(LAN, "Lan Nguyen", { locale: "vi-VN" })],
      [GUEST, slackUser(GUEST, "Gia Guest", { locale: "en-US", is_restricted: true })],
      [ADMIN, slackUser(ADMIN, "Ada Admin", { locale: "en-US", is_admin: true })],
    ]),
    members: new Map([
      [CHANNEL, [ALICE, BOB, LAN, GUEST, BOT]],
      [OTHER_CHANNEL, [BOB, BOT]],
    ]),
    files: new Map(),
    downloads: new Map(),
    messages: new Map(),
  };
}

/**
 * `ListenerDeps` over fakes at the edges only: the job service is the real one (a runner
 * double records kicks), so a test asserts on jobs, settings and templates themselves.
 */
export async function buildListenerDeps(
  options: { regenerateCooldownMs?: number } = {},
): Promise<ListenerKit> {
  const { logger, lines } = recordingLogger();
  const store = await openStore("memory://", { keyPrefix: "listener-test" });
  const clock = { now: NOW };
  const repo = new JobRepository(store, { retentionMs: 24 * 60 * 60_000, logger });
  const runner = { kick: vi.fn(), abort: vi.fn(), settle: vi.fn(), discard: vi.fn(async () => {}) };
  const jobs = new JobService({
    repo,
    store,
    admission: new Admission({
      store,
      limits: defaultAdmissionLimits,
      logger,
      stillHolds: async () => true,
    }),
    runner,
    logger,
    retentionMs: 24 * 60 * 60_000,
    now: () => clock.now,
    ...(options.regenerateCooldownMs === undefined
      ? {}
      : { regenerateCooldownMs: options.regenerateCooldownMs }),
  });
  const workspace = defaultWorkspace();
  const slack = createFakeWebClient(workspace);
  // The one place the fake stands in for the SDK's client type.
  const client = slack as unknown as WebClient;
  const fileHost = createFileHost(workspace, BOT_TOKEN);
  const directory = new SlackDirectory({
    client,
    botToken: BOT_TOKEN,
    slackHosts: slackHostsOf("https://slack.test/api/"),
    logger,
    dispatcher: fileHost,
  });
  const respond = vi.fn<Responder>(async () => {});
  const deps: ListenerDeps = {
    jobs,
    directory,
    permissions: new Permissions(directory),
    respond,
    logger,
    now: () => clock.now,
  };
  return {
    deps,
    jobs,
    store,
    workspace,
    slack,
    client,
    respond,
    runner,
    logs: lines,
    clock,
    async seed(job) {
      await repo.create(job);
      return job;
    },
    logged: (level) =>
      lines.filter((line) => line.level === pino.levels.values[level]).map((line) => line.msg),
    async close() {
      await fileHost.close();
      await store.close();
    },
  };
}

/** What people were told alone (`chat.postEphemeral`), as sent. */
export function ephemerals(kit: ListenerKit): Record<string, unknown>[] {
  return kit.slack.chat.postEphemeral.mock.calls.map(([args]) => ({ ...args }));
}

/** The texts of {@link ephemerals}. */
export function ephemeralTexts(kit: ListenerKit): unknown[] {
  return ephemerals(kit).map((args) => args.text);
}

/** A fresh `ack`, recording what the listener answered Slack with. */
export function fakeAck() {
  return vi.fn(async (_response?: unknown): Promise<void> => {});
}

type CommandArgs = AllMiddlewareArgs & SlackCommandMiddlewareArgs;
type EventArgs<T extends string> = AllMiddlewareArgs & SlackEventMiddlewareArgs<T>;
type ActionArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction>;
type ViewArgs = AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>;

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
 * The button handlers `actions/index.ts` registers, by action id: tests the wiring (which
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

let jobCount = 0;

/**
 * A job of this workspace, from one of test/slack/views/fixtures.ts's stage builders:
 * started by Alice in {@link CHANNEL}, in a thread of its own, its status message posted.
 * A failed job's `resume` (the job as it was) gets the same id and origin.
 */
export function ourJob<J extends Job>(job: J, overrides: Partial<Job> = {}): J {
  jobCount += 1;
  const same = {
    id: `job-${jobCount}`,
    origin: { teamId: TEAM, channelId: CHANNEL, threadTs: nextTs(), userId: ALICE },
  };
  const resume = "resume" in job ? { resume: { ...job.resume, ...same } } : {};
  return { ...job, ...same, statusTs: nextTs(), ...resume, ...overrides } as J;
}

/** A job started through the service, as an upload would: queued, in its own thread. */
export async function startJob(
  kit: ListenerKit,
  options: { userId?: string; channelId?: string; filename?: string; teamId?: string } = {},
): Promise<Job> {
  const result = await kit.jobs.start({
    origin: {
      teamId: options.teamId ?? TEAM,
      channelId: options.channelId ?? CHANNEL,
      threadTs: nextTs(),
      userId: options.userId ?? ALICE,
    },
    source: source(options.filename === undefined ? {} : { filename: options.filename }),
    options: {},
  });
  if (result.status !== "created") throw new Error(`no job: ${result.status}`);
  return result.job;
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
