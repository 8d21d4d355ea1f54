import { lookup as dnsLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { Writable } from "node:stream";
import { Agent } from "undici";
import { expect } from "vitest";
import { type AppDeps, createApp, type MeetingNotesApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { type Job, SINGLE_INSTALL, tenantOf } from "../../src/jobs/index.ts";
import { fastRetryPolicy } from "../../src/notetaker/index.ts";
import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import { installKeyOf } from "../../src/slack/installs/install-key.ts";
import { createEmulator } from "../emulator/create-emulator.ts";
import {
  HTTP_MANIFEST,
  installedApp,
  type ManifestSource,
  OAUTH_MANIFEST,
  SOCKET_MANIFEST,
} from "../fake-slack/app-manifest.ts";
import { createFakeSlack, type StrictOption } from "../fake-slack/create-fake-slack.ts";
import type { FakeSlack, FakeTeamOption } from "../fake-slack/fake-slack-api.ts";
import type { FakeMessage } from "../fake-slack/fake-slack-types.ts";
import {
  blockActionPayload,
  fileShareMessageEvent,
  viewSubmissionPayload,
} from "../fake-slack/slack-payloads.ts";
import type { FakeSocketModeOptions, SendOptions } from "../fake-slack/socket-mode-server.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { eventually } from "../helpers/eventually.ts";
import { HttpFaultProxy } from "../helpers/http-fault-proxy.ts";
import { perFile } from "../helpers/per-file.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import {
  type InstallChoice,
  installThroughApp,
  installTokens,
  type OAuthSecrets,
  oauthEnv,
} from "./oauth-install.ts";
import { httpDelivery, type SlackDelivery, socketDelivery } from "./slack-delivery.ts";

export const SIGNING_SECRET = "e2e-signing-secret-0123456789abcdef";
export const CHANNEL = "C0E2E0001";
export const ALICE = "U0ALICE01";
export const BOB = "U0BOB0001";

/**
 * Slack's rate limits in the tests, times this: the fake's tiers (`knobs.rateScale`) and
 * the bot's budget (SLACK_RATE_SHARE) are scaled alike, so the bot stays within the fake's
 * limits by the same margin as within Slack's, in a twentieth of the time. A test of the
 * limits themselves sets its own.
 */
export const TEST_RATE_SCALE = 20;

/**
 * How the app is given Slack: one bot token (SLACK_BOT_TOKEN), or installs by OAuth
 * (SLACK_CLIENT_ID and the rest: each workspace installs it through `/slack/install`).
 */
export type SlackMode = "single" | "oauth";

export interface StackOptions {
  /**
   * `oauth`: the fake Slack installs manifests/manifest.oauth.json, the app gets the OAuth
   * settings instead of SLACK_BOT_TOKEN (the same signing secret), and the fake's default
   * workspace installs it through the app's own `/slack/install` before the stack returns.
   * HTTP only; not with `installs`. Default `single`.
   */
  mode?: SlackMode;
  /**
   * Reach the Note Service API under this host name (the app's dispatcher resolves it to
   * 127.0.0.1) instead of 127.0.0.1: the base URL is then not local, so the app applies the
   * strict result-link rules of production (https, public addresses only).
   */
  apiHost?: string;
  /** HTTP server timeouts, shortened so a test need not wait seconds. */
  httpTimeouts?: AppDeps["httpTimeouts"];
  /**
   * The fake Slack sends the app the events Slack would (its own posts and uploads among
   * them). Off unless asked, or unless `E2E_DELIVER_EVENTS=1` turns it on for every stack.
   */
  deliverEvents?: boolean;
  /**
   * Socket Mode instead of HTTP: the app gets the fake's app-level token and connects to
   * its Socket Mode server (`stack.socket`) through `apps.connections.open`.
   */
  socketMode?: boolean | FakeSocketModeOptions;
  /**
   * The manifest the fake Slack installs (its bot scopes and Messages tab); default the
   * repository's manifest of the stack's mode (manifests/manifest.http.json or
   * manifest.socket.json).
   */
  manifest?: ManifestSource;
  /** Slack's rules the fake enforces: all unless a test turns some off, saying why. */
  strict?: StrictOption;
  /** Slack's rate limits, and the bot's budget, times this ({@link TEST_RATE_SCALE}). */
  rateScale?: number;
  /**
   * The app is distributed outside the Slack Marketplace: the fake answers
   * `conversations.history` and `conversations.replies` at 1 request a minute and 15
   * objects a call, and the app is told so (SLACK_APP_DISTRIBUTION=distributed).
   */
  distributedApp?: boolean;
  /** The runner's timings, over the stack's quick ones (a load test wants production's). */
  runner?: { statusThrottleMs?: number; queueCheckMs?: number };
  /** Told of every job's stage change. */
  onStageChange?: AppDeps["onStageChange"];
  /** The bot's Slack transport, under its rate budget (a test watches what it sends). */
  slackFetch?: NonNullable<AppDeps["slackBudget"]>["fetch"];
  /**
   * Puts a fault proxy between the app and the fake Slack (`stack.slackProxy`): Web API
   * calls, downloads and uploads all pass it, and a test switches its faults on and off.
   */
  slackProxy?: boolean;
  /** The runner's failure policy, over the stack's quick one (3 tries, 10–50 ms apart). */
  failurePolicy?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Opens each download's temp file: a test puts a full disk behind it. */
  openDownloadFile?: AppDeps["openDownloadFile"];
  /** Wraps the store once opened (a test makes it fail for a while). */
  wrapStore?: AppDeps["wrapStore"];
  /** The request journal's replay waits and notices, shortened. */
  journal?: AppDeps["journal"];
  /** Readiness checks, over the stack's quick ones. */
  readiness?: AppDeps["readiness"];
  /** How long the Note Service may be unreachable before the log and readiness say so. */
  noteServiceUnreachableAfterMs?: number;
  /** Redis: the deadline of one store call. */
  storeTimeoutMs?: number;
  /** How a loss of the store's data is looked for, over the stack's quick timings. */
  storeReset?: AppDeps["storeReset"];
  /** More workspaces in the fake Slack (`installed: true` gives one a bot token). */
  teams?: FakeTeamOption[];
  /** Installs instead of the single-token mode: the app's token source and authorize. */
  installs?: (fake: FakeSlack) => NonNullable<AppDeps["installs"]>;
}

/**
 * The stack's readiness checks: the store and the disk looked at often, a failing Slack
 * asked again soon (a passing one keeps production's pace: tests count Slack's calls).
 */
const QUICK_READINESS = { storeEveryMs: 200, diskEveryMs: 500, slackFailedEveryMs: 200 };

/**
 * The real app wired to a fake Slack over HTTP (`SLACK_API_URL`), the Note Service emulator
 * and a SQLite store in a temp folder; every log line is kept. HTTP mode by default (Slack
 * requests signed and sent to `url`), Socket Mode with `socketMode` (envelopes sent over the
 * fake's socket); `deliver` sends either way.
 */
export async function startStack(env: Record<string, string> = {}, options: StackOptions = {}) {
  const mode = options.mode ?? "single";
  const socketMode = options.socketMode ?? false;
  if (mode === "oauth" && (socketMode !== false || options.installs !== undefined)) {
    throw new Error("startStack: the OAuth mode is HTTP only, with the app's own installs");
  }
  const temp = await makeTempDir("mn-e2e-");
  const rateScale = options.rateScale ?? TEST_RATE_SCALE;
  const slackProxy = options.slackProxy === true ? new HttpFaultProxy() : undefined;
  await slackProxy?.start();
  const fake = await createFakeSlack({
    socketMode,
    knobs: { rateScale },
    ...(slackProxy === undefined ? {} : { publicOrigin: slackProxy.origin }),
    manifest: options.manifest ?? defaultManifest(mode, socketMode !== false),
    ...(options.strict === undefined ? {} : { strict: options.strict }),
    ...(options.teams === undefined ? {} : { teams: options.teams }),
    ...(options.distributedApp === true ? { distributedApp: true } : {}),
  });
  const emulator = await createEmulator();
  if (slackProxy !== undefined) slackProxy.target = fake.origin;
  fake.addUser({ id: ALICE, name: "alice", real_name: "Alice Nguyen", locale: "en-US" });
  fake.addUser({ id: BOB, name: "bob", real_name: "Bob Tran", locale: "en-US" });
  fake.addChannel({ id: CHANNEL, name: "weekly-sync" });
  const baseUrl = new URL(emulator.baseUrl);
  if (options.apiHost !== undefined) baseUrl.hostname = options.apiHost;
  const dispatcher =
    options.apiHost === undefined ? undefined : resolvingAgent(options.apiHost, "127.0.0.1");
  const oauth =
    mode === "oauth"
      ? oauthEnv(fake, redirectUrlOf(options.manifest ?? OAUTH_MANIFEST))
      : undefined;
  const appEnv = {
    ...(oauth === undefined ? { SLACK_BOT_TOKEN: fake.botToken } : oauth.env),
    ...(fake.socket === undefined
      ? { SLACK_SIGNING_SECRET: SIGNING_SECRET }
      : { SLACK_APP_TOKEN: fake.socket.appToken }),
    SLACK_API_URL: slackProxy === undefined ? fake.apiUrl : `${slackProxy.origin}/api/`,
    NOTE_TAKER_BASE_URL: baseUrl.href,
    NOTE_TAKER_API_KEY: emulator.apiKey,
    STORE_URL: `sqlite://${temp.dir}/e2e.sqlite`,
    PORT: "0",
    POLL_INITIAL_MS: "10",
    POLL_MAX_MS: "40",
    LOG_LEVEL: "debug",
    SLACK_RATE_SHARE: String(rateScale),
    ...(options.distributedApp === true ? { SLACK_APP_DISTRIBUTION: "distributed" } : {}),
    ...env,
  };
  const config = loadConfig(appEnv);
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const deps: AppDeps = {
    logDestination,
    ...(dispatcher === undefined ? {} : { dispatcher }),
    tempDir: `${temp.dir}/tmp`,
    noteTakerRetry: fastRetryPolicy,
    jobs: {
      failurePolicy: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50, ...options.failurePolicy },
      runner: { statusThrottleMs: 0, queueCheckMs: 500, claimGapMs: 5, ...options.runner },
    },
    ...(options.httpTimeouts === undefined ? {} : { httpTimeouts: options.httpTimeouts }),
    socketBackoff: { baseMs: 20, maxMs: 200 },
    ...(options.onStageChange === undefined ? {} : { onStageChange: options.onStageChange }),
    ...(options.slackFetch === undefined ? {} : { slackBudget: { fetch: options.slackFetch } }),
    ...(options.openDownloadFile === undefined
      ? {}
      : { openDownloadFile: options.openDownloadFile }),
    ...(options.wrapStore === undefined ? {} : { wrapStore: options.wrapStore }),
    ...(options.journal === undefined ? {} : { journal: options.journal }),
    readiness: {
      ...options.readiness,
      timings: { ...QUICK_READINESS, ...options.readiness?.timings },
    },
    ...(options.storeTimeoutMs === undefined ? {} : { storeTimeoutMs: options.storeTimeoutMs }),
    ...(options.noteServiceUnreachableAfterMs === undefined
      ? {}
      : { noteServiceUnreachableAfterMs: options.noteServiceUnreachableAfterMs }),
    storeReset: { checkEveryMs: 200, ...options.storeReset },
    ...(options.installs === undefined ? {} : { installs: options.installs(fake) }),
  };
  let app: MeetingNotesApp = await createApp(config, deps);
  const port = await app.start();
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}/slack/events`;
  const installWorkspace = async (choice: InstallChoice) => {
    const installed = await installThroughApp(origin, fake, choice);
    if (installed.status !== 200) {
      throw new Error(`the install answered ${installed.status}: ${installed.page}`);
    }
  };
  // Installed as a person installs it: the app's install page, Slack's consent, the redirect.
  if (mode === "oauth") await installWorkspace({ team: fake.teamId });
  const install = mode === "oauth" ? installKeyOf({ teamId: fake.teamId }) : SINGLE_INSTALL;
  const botToken = () =>
    mode === "oauth" ? (fake.team(fake.teamId).botToken ?? "") : fake.botToken;
  const deliver: SlackDelivery =
    fake.socket === undefined
      ? httpDelivery(url, SIGNING_SECRET, fake.teamId)
      : socketDelivery(fake.socket, fake.teamId);
  // The fake's own events (the bot's posts and uploads) go over HTTP: HTTP-mode stacks only.
  if (
    fake.socket === undefined &&
    (options.deliverEvents ?? process.env.E2E_DELIVER_EVENTS === "1")
  ) {
    fake.deliverEvents({ url, signingSecret: SIGNING_SECRET });
  }
  return {
    mode,
    /** The install the default workspace's requests and jobs belong to. */
    install,
    /** The key its data (settings, jobs by channel…) is kept under: `tenantOf(install, team)`. */
    tenant: tenantOf(install, fake.teamId),
    /** The bot token the app uses in the default workspace (OAuth: the one the install got). */
    get botToken(): string {
      return botToken();
    },
    /** OAuth mode: the app's client secret, state secret and token key. */
    oauth: oauth?.secrets satisfies OAuthSecrets | undefined,
    /**
     * Every secret the app holds — the signing secret, the Note Service key, the bot tokens
     * (and refresh tokens) it was given, the OAuth secrets — none of which may reach a log
     * line or a host that is not Slack's.
     */
    secrets(): string[] {
      const tokens = mode === "oauth" ? installTokens(fake, fake.teamId) : [fake.botToken];
      const extra = oauth === undefined ? [] : Object.values(oauth.secrets);
      return [SIGNING_SECRET, emulator.apiKey, ...tokens, ...extra];
    },
    /** OAuth mode: another workspace of the fake (`teams`) installs the app, or an org. */
    installWorkspace,
    /** The app now running (a new one after {@link restart}). */
    get app(): MeetingNotesApp {
      return app;
    },
    /**
     * Stops the app and starts a new one on the same store (the SQLite file), temp folder and
     * port, as a restarted process would: whatever it knows, it read from the store. `env`
     * changes the configuration it starts with (an operator who corrected a variable).
     */
    async restart(env: Record<string, string> = {}): Promise<void> {
      await app.stop();
      app = await createApp({ ...loadConfig({ ...appEnv, ...env }), port }, deps);
      await app.start();
    },
    fake,
    /** Socket Mode: the fake Socket Mode server the app is connected to. */
    socket: fake.socket,
    /** With `slackProxy`: what stands between the app and the fake Slack. */
    slackProxy,
    emulator,
    /** The app's own HTTP server (`/healthz`, `/readyz`, `/metrics`). */
    origin,
    /** HTTP mode: where Slack requests go (Socket Mode has no such route: 404). */
    url,
    /** Sends events, commands and interactions the way the stack's mode receives them. */
    deliver,
    logs,
    temp,
    /** Messages of a thread, parent first. */
    thread: (ts: string): FakeMessage[] => fake.thread(CHANNEL, ts),
    job: (id: string): Promise<Job | undefined> => app.jobs.service.get(id),
    /**
     * Resolves once the app and the fake Slack are quiet: every event the fake queued was
     * delivered, no listener runs, no job step runs or is due. What happens next waits for a
     * timer (a poll) or a request, so a test that checks something did NOT happen checks
     * after this rather than after a sleep.
     */
    async settled(): Promise<void> {
      do {
        await fake.deliveriesSettled();
        await app.idle();
      } while (fake.deliveriesPending > 0);
    },
    async stop() {
      fake.deliverEvents(undefined);
      await fake.deliveriesSettled();
      await app.stop();
      await emulator.close();
      await fake.close();
      await slackProxy?.stop();
      await dispatcher?.close();
      await temp.cleanup();
    },
  };
}

function defaultManifest(mode: SlackMode, socketMode: boolean): ManifestSource {
  if (mode === "oauth") return OAUTH_MANIFEST;
  return socketMode ? SOCKET_MANIFEST : HTTP_MANIFEST;
}

/** The redirect URL the manifest lists first: SLACK_REDIRECT_URL must be one of them. */
function redirectUrlOf(manifest: ManifestSource): string {
  const [first] = installedApp(manifest).redirectUrls;
  if (first === undefined) throw new Error("startStack: the OAuth manifest has no redirect_urls");
  return first;
}

/** An undici agent whose connections to `hostname` go to `address`; other names resolve as usual. */
function resolvingAgent(hostname: string, address: string): Agent {
  const lookup: LookupFunction = (host, options, callback) => {
    if (host !== hostname) {
      dnsLookup(host, options, callback);
      return;
    }
    if (options.all) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  };
  return new Agent({ connect: { lookup } });
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** One stack for the tests of the calling file (or `describe`). */
export function useStack(env: Record<string, string> = {}, options: StackOptions = {}): Stack {
  return perFile("the stack", {
    start: () => startStack(env, options),
    stop: (stack) => stack.stop(),
  });
}

/**
 * Someone (Alice by default) shares a recording in the channel and Slack sends the
 * `file_share` message event; returns the thread's ts and the file.
 */
export async function shareRecording(
  stack: Stack,
  name: string,
  options: {
    user?: string;
    text?: string;
    bytes?: Buffer;
    /** A file on disk instead of `bytes` (a large recording). */
    path?: string;
    deliver?: SendOptions;
  } = {},
) {
  const user = options.user ?? ALICE;
  const file =
    options.path === undefined
      ? stack.fake.addFile({ name, bytes: options.bytes ?? recordingBytes(name), user })
      : stack.fake.addFile({ name, path: options.path, user });
  const text = options.text ?? "";
  const message = stack.fake.shareFile(file, { channel: CHANNEL, user, text });
  const event = fileShareMessageEvent(file, { channel: CHANNEL, user, text, ts: message.ts });
  const sent = await stack.deliver.event(event, options.deliver);
  if (!sent.acked) throw new Error("the upload event was not taken");
  return { ts: message.ts, file, event, sent };
}

export { eventually };

/** A job's button as a test finds it: the job, and the status message that carries it. */
export interface JobButton {
  jobId: string;
  statusTs: string;
  /** The upload's thread, which Slack names in a click on a threaded message. */
  threadTs?: string;
  /** The job's channel; default {@link CHANNEL}. */
  channel?: string;
}

/** Waits for the thread's status message to offer `actionId`; returns the job and the message. */
export async function buttonOn(
  stack: Stack,
  threadTs: string,
  actionId: string,
  channel = CHANNEL,
): Promise<JobButton & { status: FakeMessage | undefined }> {
  const status = await eventually(
    () => statusMessage(stack.fake.thread(channel, threadTs)),
    (m) => buttonValue(m, actionId) !== undefined,
  );
  return {
    status,
    statusTs: status?.ts ?? "",
    jobId: buttonValue(status, actionId) ?? "",
    threadTs,
    ...(channel === CHANNEL ? {} : { channel }),
  };
}

/**
 * Someone (Alice by default) clicks a job's button, delivered the stack's way (a signed
 * request or an `interactive` envelope); the app must ack it with nothing in the answer.
 */
export async function clickButton(stack: Stack, actionId: string, at: JobButton, user = ALICE) {
  const payload = blockActionPayload({
    actionId,
    value: at.jobId,
    user,
    channel: at.channel ?? CHANNEL,
    messageTs: at.statusTs,
    ...(at.threadTs === undefined ? {} : { threadTs: at.threadTs }),
  });
  const answer = await stack.deliver.interaction(payload);
  expect(answer).toMatchObject({ acked: true, payload: undefined });
  return answer;
}

/** The job's status message: the thread message whose metadata says "status". */
export function statusMessage(messages: FakeMessage[]): FakeMessage | undefined {
  return messages.find((m) => m.metadata?.event_payload.kind === "status");
}

/** The note parts in the thread, in order of posting. */
export function noteParts(messages: FakeMessage[]): FakeMessage[] {
  return messages.filter((m) => m.metadata?.event_payload.kind === "note_part");
}

/**
 * The modal `callbackId` once it is filled: modals open at once with a loading view and are
 * filled by `views.update` after the bot's look-ups, so the last record of the view with
 * input blocks is what the person sees.
 */
export function filledModal(stack: Stack, callbackId: string, privateMetadata?: string) {
  const hasInputs = (view: { blocks?: unknown }) =>
    Array.isArray(view.blocks) &&
    view.blocks.some((b) => (b as { type?: unknown }).type === "input");
  return eventually(
    () =>
      stack.fake.views.findLast(
        (v) =>
          v.view.callback_id === callbackId &&
          (privateMetadata === undefined || v.view.private_metadata === privateMetadata),
      ),
    (v) => v !== undefined && hasInputs(v.view),
    { what: `the ${callbackId} modal, filled` },
  );
}

/** The value (job id) of a button on a message, by action id. */
export function buttonValue(
  message: FakeMessage | undefined,
  actionId: string,
): string | undefined {
  for (const block of (message?.blocks ?? []) as {
    elements?: { action_id?: string; value?: string }[];
  }[]) {
    const button = block.elements?.find((e) => e.action_id === actionId);
    if (button !== undefined) return button.value;
  }
  return undefined;
}

/** The text of every markdown block of the given messages, joined. */
export function markdownOf(messages: FakeMessage[]): string {
  return messages
    .flatMap((m) => (m.blocks ?? []) as { type: string; text?: string }[])
    .filter((b) => b.type === "markdown")
    .map((b) => b.text ?? "")
    .join("\n");
}

/**
 * Alice clicks Regenerate on a done job, waits for the modal, and submits new typed names
 * (speaker id → name), as a person would.
 */
export async function regenerateWithNames(
  stack: Stack,
  at: JobButton,
  names: Record<string, string>,
): Promise<void> {
  await clickButton(stack, ACTIONS.regenerate, at);
  const opened = await eventually(
    () => stack.fake.views.at(-1),
    (v) => v?.view.callback_id === VIEWS.regenerate,
  );
  expect(opened?.view.private_metadata).toBe(at.jobId);
  const values = Object.fromEntries(
    Object.entries(names).map(([speakerId, name]) => [
      speakerBlock.name(speakerId),
      { name: { type: "plain_text_input", value: name } },
    ]),
  );
  const payload = viewSubmissionPayload({
    callbackId: VIEWS.regenerate,
    privateMetadata: at.jobId,
    values,
    user: ALICE,
  });
  const answer = await stack.deliver.interaction(payload);
  expect(answer.acked).toBe(true);
}
