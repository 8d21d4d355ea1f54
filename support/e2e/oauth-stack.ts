import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { type AppDeps, createApp, type MeetingNotesApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { fastRetryPolicy } from "../../src/notetaker/index.ts";
import { createEmulator } from "../emulator/create-emulator.ts";
import { createFakeSlack, type FakeSlack } from "../fake-slack/create-fake-slack.ts";
import type { FakeTeamOption } from "../fake-slack/fake-slack-api.ts";
import { type CommandInput, commandFields, eventCallback } from "../fake-slack/slack-payloads.ts";
import {
  type SlackAppResponse,
  sendAction,
  sendCommand,
  sendSigned,
} from "../fake-slack/slack-request.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import { type InstallChoice, installThroughApp, oauthEnv } from "./oauth-install.ts";
import type { Delivered } from "./slack-delivery.ts";
import { TEST_RATE_SCALE } from "./stack.ts";

export const OAUTH_SIGNING_SECRET = "oauth-e2e-signing-secret-0123456789";
/** The public address of the redirect, as the app's manifest and SLACK_REDIRECT_URL say. */
export const PUBLIC_REDIRECT = "https://notes.example.com/slack/oauth_redirect";

/** `quick`: the settings `startStack` runs jobs with. */
const QUICK_ENV = {
  SLACK_RATE_SHARE: String(TEST_RATE_SCALE),
  POLL_INITIAL_MS: "10",
  POLL_MAX_MS: "40",
};
const QUICK_DEPS: AppDeps = {
  jobs: {
    failurePolicy: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
    runner: { statusThrottleMs: 0, queueCheckMs: 500, claimGapMs: 5 },
  },
};

/** One process of the app in OAuth mode, and every line it logged. */
export interface OAuthReplica {
  app: MeetingNotesApp;
  origin: string;
  logs: string[];
}

/**
 * The real app in OAuth mode, as `createApp` builds it, against a fake Slack with several
 * workspaces (and an enterprise) that installs it through `/slack/install`, and the Note
 * Service emulator. HTTP mode by default (Slack's requests signed and sent to
 * `/slack/events`); `socketMode`, Socket Mode (the app-level token, envelopes over the fake's
 * socket), the install pages still served by the app's HTTP server. `replicas` processes
 * share one store (`storeUrl`, default a SQLite file of the stack's own, which only one may
 * use: several need Redis).
 */
export async function startOAuthStack(o: {
  manifest: Record<string, unknown>;
  teams: FakeTeamOption[];
  enterprise?: { id: string; name: string };
  replicas?: number;
  storeUrl?: string;
  /**
   * Jobs run to their notes quickly, as in `startStack`: Slack's rate limits and the bot's
   * budget scaled alike, the Note Service polled every few ms, the runner's waits short.
   */
  quick?: boolean;
  /** More settings (quick Note Service polls for a test that runs jobs). */
  env?: Record<string, string>;
  /**
   * Socket Mode: SLACK_APP_TOKEN instead of SLACK_SIGNING_SECRET, every replica connected
   * to the fake's Socket Mode server (`fake.socket`) through `apps.connections.open`.
   */
  socketMode?: boolean;
  /** Wraps each replica's store (a `StoreFault` makes it fail for a while). */
  wrapStore?: AppDeps["wrapStore"];
  /** The request journal's waits (its file: `journalPath`, in the stack's folder). */
  journal?: Omit<NonNullable<AppDeps["journal"]>, "path">;
}) {
  const temp = await makeTempDir("mn-oauth-e2e-");
  const fake = await createFakeSlack({
    manifest: o.manifest,
    teams: o.teams,
    ...(o.enterprise === undefined ? {} : { enterprise: o.enterprise }),
    ...(o.quick === true ? { knobs: { rateScale: TEST_RATE_SCALE } } : {}),
    ...(o.socketMode === true ? { socketMode: true } : {}),
  });
  const socket = fake.socket;
  const emulator = await createEmulator();
  const env = {
    ...oauthEnv(fake, PUBLIC_REDIRECT).env,
    // Socket Mode needs no signing secret (nothing reaches /slack/events): left empty,
    // which the configuration reads as unset.
    SLACK_SIGNING_SECRET: socket === undefined ? OAUTH_SIGNING_SECRET : "",
    SLACK_APP_TOKEN: socket?.appToken ?? "",
    SLACK_API_URL: fake.apiUrl,
    NOTE_TAKER_BASE_URL: emulator.baseUrl,
    NOTE_TAKER_API_KEY: emulator.apiKey,
    STORE_URL: o.storeUrl ?? `sqlite://${temp.dir}/oauth.sqlite`,
    PORT: "0",
    LOG_LEVEL: "debug",
    ...(o.quick === true ? QUICK_ENV : {}),
    ...o.env,
  };
  const replicas: OAuthReplica[] = [];
  /** Each replica's request journal: what it could not record after Slack's ack. */
  const journalPath = (replica: number) => `${temp.dir}/journal-${replica}.jsonl`;
  const config = loadConfig(env);
  /** Each replica's dependencies and port, for a restart. */
  const made = new Map<OAuthReplica, { deps: AppDeps; port: number }>();
  for (let i = 0; i < (o.replicas ?? 1); i++) {
    const logs: string[] = [];
    const deps: AppDeps = {
      logDestination: new Writable({
        write(chunk, _encoding, callback) {
          logs.push(String(chunk));
          callback();
        },
      }),
      tempDir: `${temp.dir}/tmp-${i}`,
      noteTakerRetry: fastRetryPolicy,
      socketBackoff: { baseMs: 20, maxMs: 200 },
      ...(o.quick === true ? QUICK_DEPS : {}),
      ...(o.wrapStore === undefined ? {} : { wrapStore: o.wrapStore }),
      journal: { ...o.journal, path: journalPath(i) },
    };
    const app = await createApp(config, deps);
    const port = await app.start();
    const replica = { app, origin: `http://127.0.0.1:${port}`, logs };
    replicas.push(replica);
    made.set(replica, { deps, port });
  }
  return {
    fake,
    emulator,
    replicas,
    env,
    journalPath,
    /** The app's configured secrets (OAuth's, the signing secret, the Note Service key…). */
    secrets: (): string[] =>
      [
        env.SLACK_CLIENT_SECRET,
        env.SLACK_STATE_SECRET,
        env.SLACK_TOKEN_KEY,
        env.SLACK_SIGNING_SECRET,
        env.SLACK_APP_TOKEN,
        env.NOTE_TAKER_API_KEY,
      ].filter((s) => s !== ""),
    /**
     * A person installs the app from `replica`'s install page: `/slack/install` (state
     * cookie, redirect to Slack) → Slack's consent page (`authorizeInstall`, for `team` or
     * org-wide) → the redirect back, with the cookie. The page the person sees.
     */
    async install(
      install: InstallChoice,
      replica: OAuthReplica = replicas[0] as OAuthReplica,
    ): Promise<{ status: number; page: string }> {
      return installThroughApp(replica.origin, fake, install);
    },
    /**
     * Signs and sends an Events API envelope of `team`, stamped as Slack stamps it for the
     * install that acts there (or, `as`, for an install of the caller's choosing).
     */
    async sendEvent(
      replica: OAuthReplica,
      team: string,
      event: Record<string, unknown>,
      as?: { enterpriseId?: string; isEnterpriseInstall?: boolean; orgLevel?: boolean },
    ): Promise<SlackAppResponse> {
      const envelope =
        as === undefined
          ? fake.team(team).envelope(event)
          : eventCallback(event, {
              teamId: team,
              eventId: `Ev0${randomBytes(5).toString("hex").toUpperCase()}`,
              ...as,
            });
      return sendSigned(
        `${replica.origin}/slack/events`,
        OAUTH_SIGNING_SECRET,
        JSON.stringify(envelope),
        "application/json",
      );
    },
    /**
     * Delivers what Slack sends the way the stack's mode receives it — an event of `team`
     * in the envelope of the install acting there, or an interaction payload — as a signed
     * request to `replica` (HTTP) or an envelope over the socket (Socket Mode: to the newest
     * connection, whichever replica opened it).
     */
    deliver: {
      async event(
        team: string,
        event: Record<string, unknown>,
        replica: OAuthReplica = replicas[0] as OAuthReplica,
      ): Promise<Delivered> {
        const envelope = fake.team(team).envelope(event);
        if (socket === undefined) {
          return answered(() =>
            sendSigned(
              `${replica.origin}/slack/events`,
              OAUTH_SIGNING_SECRET,
              JSON.stringify(envelope),
              "application/json",
            ),
          );
        }
        return plainAck(await socket.send("events_api", envelope));
      },
      async interaction(
        payload: Record<string, unknown>,
        replica: OAuthReplica = replicas[0] as OAuthReplica,
      ): Promise<Delivered> {
        if (socket === undefined) {
          return answered(() =>
            sendAction(`${replica.origin}/slack/events`, OAUTH_SIGNING_SECRET, payload),
          );
        }
        return plainAck(await socket.send("interactive", payload));
      },
      /** A slash command; `input` carries its workspace (`fake.team(t).commandContext`). */
      async command(
        input: CommandInput,
        replica: OAuthReplica = replicas[0] as OAuthReplica,
      ): Promise<Delivered> {
        if (socket === undefined) {
          return answered(() =>
            sendCommand(`${replica.origin}/slack/events`, OAUTH_SIGNING_SECRET, input),
          );
        }
        return plainAck(await socket.send("slash_commands", commandFields(input)));
      },
    },
    /**
     * Stops `replica`'s app and starts a new one in its place, on the same store, temp folder
     * and port, as a restarted process would: whatever it knows, it read from the store.
     */
    async restart(replica: OAuthReplica = replicas[0] as OAuthReplica): Promise<void> {
      const was = made.get(replica);
      if (was === undefined) throw new Error("not a replica of this stack");
      const { deps, port } = was;
      await replica.app.stop();
      replica.app = await createApp({ ...config, port }, deps);
      await replica.app.start();
    },
    async stop() {
      for (const replica of replicas) await replica.app.stop();
      await fake.close();
      await emulator.close();
      await temp.cleanup();
    },
  };
}

/** An HTTP answer as a delivery: acked when 200. */
async function answered(send: () => Promise<SlackAppResponse>): Promise<Delivered> {
  const started = Date.now();
  const res = await send();
  return { acked: res.status === 200, payload: res.json, ms: Date.now() - started };
}

/** A socket ack as a delivery: the `{}` Bolt puts in a plain ack read as no payload. */
function plainAck(result: Delivered): Delivered {
  const { payload } = result;
  const plain =
    typeof payload === "object" && payload !== null && Object.keys(payload).length === 0;
  return { ...result, payload: plain ? undefined : payload };
}

export type OAuthStack = Awaited<ReturnType<typeof startOAuthStack>>;
export type { FakeSlack };
