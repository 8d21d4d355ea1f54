import type { WebClient } from "@slack/web-api";
import { type Logger, pino } from "pino";
import { type Mock, vi } from "vitest";
import {
  Admission,
  createServices,
  defaultAdmissionLimits,
  type Job,
  JobRepository,
  type JobService,
  type Services,
} from "../../src/jobs/index.ts";
import { SlackDirectory } from "../../src/slack/directory/slack-directory.ts";
import { slackHostsOf } from "../../src/slack/gateway/download-slack-file.ts";
import type { ListenerDeps } from "../../src/slack/listeners/deps.ts";
import type { PendingStart } from "../../src/slack/listeners/pending-starts.ts";
import { SaidOnce } from "../../src/slack/listeners/said-once.ts";
import { Permissions } from "../../src/slack/permissions.ts";
import type { Responder } from "../../src/slack/responder/response-url.ts";
import { SlackResponder } from "../../src/slack/responder/slack-responder.ts";
import type { Store } from "../../src/store/index.ts";
import { openMemoryStore } from "../../src/store/sqlite-store.ts";
import { DEFAULT_TEAM_ID } from "../fake-slack/slack-payloads.ts";
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
 * What listener unit tests run over: `ListenerDeps` with the real `JobService` (over a
 * memory store), `SlackDirectory` and `Permissions`, a fake Web API client over a small
 * workspace, and a logger whose lines can be read; plus jobs and files to put in it.
 */

export const TEAM = DEFAULT_TEAM_ID;
export const CHANNEL = "C0LISTEN01";
/** A channel only Bob and the bot are in. */
export const OTHER_CHANNEL = "C0OTHER001";
export const BOT = "U0FAKEBOT";
export const BOT_ID = "B0FAKEBOT";
/** Never to appear in a log line or reach a host other than Slack's. */
export const BOT_TOKEN = "xoxb-listener-test-token";
/** People of the workspace; all but Admin are in {@link CHANNEL}. */
export const ALICE = "U0ALICE001";
export const BOB = "U0BOB00001";
export const LAN = "U0LAN00001";
export const GUEST = "U0GUEST001";
export const ADMIN = "U0ADMIN001";
const RETENTION_MS = 24 * 60 * 60_000;
/** Starts every test clock; jobs' times are near it. */
export const NOW = Date.UTC(2025, 0, 15, 9, 0, 0);

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
  /** What listeners kept for replay because the store failed (`deps.pending`). */
  kept: PendingStart[];
  jobs: JobService;
  /** The other use cases over the same store: settings, templates, modal memory, installs. */
  services: Services;
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
  /** Every file download asked of the file host: where, and with which credentials. */
  fileRequests(): { url: string; authorization: unknown }[];
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

/** The real job service over `store`, with a runner double that only records. */
function jobServiceOver(store: Store, logger: Logger, clock: { now: number }, canPrepare: boolean) {
  const repo = new JobRepository(store, { retentionMs: RETENTION_MS, logger });
  const runner = { kick: vi.fn(), abort: vi.fn(), settle: vi.fn(), discard: vi.fn(async () => {}) };
  const admission = new Admission({
    store,
    limits: defaultAdmissionLimits,
    logger,
    stillHolds: async () => true,
  });
  const services = createServices({
    repo,
    store,
    admission,
    runner,
    logger,
    retentionMs: RETENTION_MS,
    now: () => clock.now,
    canPrepare,
  });
  return { services, repo, runner };
}

/**
 * `ListenerDeps` over fakes at the edges only: the job service is the real one (a runner
 * double records kicks), so a test asserts on jobs, settings and templates themselves.
 */
export async function buildListenerDeps(
  options: { canPrepare?: boolean; wrapStore?: (store: Store) => Store } = {},
): Promise<ListenerKit> {
  const { logger, lines } = recordingLogger();
  // Only the memory backend is imported: the store barrel pulls in Redis and SQLite too.
  const memory = openMemoryStore({ keyPrefix: "listener-test", sweepIntervalMs: 0 });
  const store = options.wrapStore?.(memory) ?? memory;
  const clock = { now: NOW };
  const { services, repo, runner } = jobServiceOver(
    store,
    logger,
    clock,
    options.canPrepare ?? false,
  );
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
  const kept: PendingStart[] = [];
  const jobs = services.service;
  const deps: ListenerDeps = {
    jobs,
    settings: services.settings,
    uploads: services.uploads,
    templates: services.templates,
    modals: services.modals,
    installs: services.installs,
    directory,
    responder: new SlackResponder({ client, logger }),
    permissions: new Permissions(directory),
    respond,
    logger,
    now: () => clock.now,
    pending: {
      keep: vi.fn(async (entry: PendingStart) => {
        kept.push(entry);
        return true;
      }),
    },
    saidLost: new SaidOnce(),
  };
  return {
    deps,
    kept,
    jobs,
    services,
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
    fileRequests: () =>
      (fileHost.getCallHistory()?.calls() ?? []).map((call) => ({
        url: call.fullUrl,
        authorization: new Headers(call.headers as Record<string, string>).get("authorization"),
      })),
    logged: (level) =>
      lines.filter((line) => line.level === pino.levels.values[level]).map((line) => line.msg),
    async close() {
      await fileHost.close();
      await store.close();
    },
  };
}

/** A DOCX's first bytes (a zip), then `fill`: what a Word template starts with. */
export function docxBytes(fill = 1, length = 64): Uint8Array {
  const bytes = new Uint8Array(length).fill(fill);
  bytes.set([0x50, 0x4b, 3, 4]);
  return bytes;
}

/**
 * Makes a file Alice uploaded known to `files.info` and downloadable from the file host,
 * as a modal's `file_input` leaves it. Returns its id.
 */
export function knowUpload(
  kit: ListenerKit,
  file: { id: string; name: string; bytes: Uint8Array; filetype?: string; size?: number },
): string {
  const path = `/files-pri/${TEAM}-${file.id}/download/${encodeURIComponent(file.name)}`;
  kit.workspace.files.set(file.id, {
    id: file.id,
    name: file.name,
    title: file.name,
    filetype: file.filetype ?? "docx",
    mimetype: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    user: ALICE,
    size: file.size ?? file.bytes.byteLength,
    mode: "hosted",
    url_private: `${FILE_HOST}/files-pri/${TEAM}-${file.id}/${encodeURIComponent(file.name)}`,
    url_private_download: `${FILE_HOST}${path}`,
  });
  kit.workspace.downloads.set(path, file.bytes);
  return file.id;
}

/** What people were told alone (`chat.postEphemeral`), as sent. */
export function ephemerals(kit: ListenerKit): Record<string, unknown>[] {
  return kit.slack.chat.postEphemeral.mock.calls.map(([args]) => ({ ...args }));
}

/** The texts of {@link ephemerals}. */
export function ephemeralTexts(kit: ListenerKit): unknown[] {
  return ephemerals(kit).map((args) => args.text);
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
  options: {
    userId?: string;
    channelId?: string;
    filename?: string;
    teamId?: string;
    /** The install it was started in (installs by OAuth); none: the single-token mode. */
    install?: string;
  } = {},
): Promise<Job> {
  const result = await kit.jobs.start({
    origin: {
      teamId: options.teamId ?? TEAM,
      channelId: options.channelId ?? CHANNEL,
      threadTs: nextTs(),
      userId: options.userId ?? ALICE,
      ...(options.install === undefined ? {} : { install: options.install }),
    },
    source: source(options.filename === undefined ? {} : { filename: options.filename }),
    options: {},
  });
  if (result.status !== "created") throw new Error(`no job: ${result.status}`);
  return result.job;
}
