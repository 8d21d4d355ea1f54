import type { z } from "zod";
import { envSchema, type LOG_LEVELS, OAUTH_NEEDS, oauthEnvSchema } from "./config-schema.ts";

/**
 * Reads the configuration contract (`config-schema.ts`). This module is the only reader of
 * the environment: everything else receives a typed `Config`.
 */

type Env = Record<string, string | undefined>;
type Parsed = z.output<typeof oauthEnvSchema>;

export type LogLevel = (typeof LOG_LEVELS)[number];
/** The typed configuration of one process. */
export type Config = ReturnType<typeof configOf>;
/** Installs by OAuth (SLACK_CLIENT_ID set); `Config.slack.oauth`. */
export type OAuthConfig = NonNullable<Config["slack"]["oauth"]>;

/** Raised when the environment does not describe a usable configuration. */
export class ConfigError extends Error {
  readonly code = "config_invalid";
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      [
        `meeting-notes cannot start: ${headline(problems)}`,
        ...problems.map((problem) => `  - ${problem}`),
        "Set these variables in the environment or in a .env file (see .env.example), then start again.",
      ].join("\n"),
    );
    this.name = this.constructor.name;
    this.problems = problems;
  }
}

/** "incomplete" only of missing values, "invalid" only of values that are set but wrong. */
function headline(problems: readonly string[]): string {
  const missing = problems.filter((p) => /^\S+ is missing\b/.test(p)).length;
  if (missing === problems.length) return "the configuration is incomplete.";
  if (missing === 0) return "some settings are invalid.";
  return "the configuration is incomplete and some settings are invalid.";
}

/**
 * Reads and validates the configuration from `env`.
 * @throws {ConfigError} listing every missing or bad variable at once, one line each.
 */
export function loadConfig(given: Env): Config {
  const env = withSlackCliTokens(trimmed(given));
  const schema = env.SLACK_CLIENT_ID === undefined ? envSchema : oauthEnvSchema;
  const parsed = schema.safeParse(env);
  const problems = [
    ...(parsed.error?.issues ?? []).map((issue) => `${String(issue.path[0])} ${issue.message}`),
    ...crossFieldProblems(env),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  return configOf(parsed.data);
}

/** Values trimmed, and empty ones unset: `FOO=` in a `.env` file means "not set". */
function trimmed(env: Env): Env {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, value?.trim() || undefined]),
  );
}

/**
 * Under `slack run` the Slack CLI hands the development app's tokens to the start hook as
 * SLACK_BOT_TOKEN / SLACK_APP_TOKEN, and also as SLACK_CLI_XOXB / SLACK_CLI_XAPP (the only
 * names older CLIs set): https://docs.slack.dev/tools/slack-cli/reference/hooks ("SDK-managed
 * connection"). The usual names win, as the CLI keeps a token already set.
 */
function withSlackCliTokens(env: Env): Env {
  return {
    ...env,
    SLACK_BOT_TOKEN: env.SLACK_BOT_TOKEN ?? env.SLACK_CLI_XOXB,
    SLACK_APP_TOKEN: env.SLACK_APP_TOKEN ?? env.SLACK_CLI_XAPP,
  };
}

/**
 * Checks that involve several variables. A variable that is bad on its own is left out of
 * them (its own line says so), so the person starting the bot sees every problem at once.
 */
function crossFieldProblems(env: Env): string[] {
  const problems: string[] = [];
  const number = (name: "PORT" | "METRICS_PORT" | "POLL_INITIAL_MS" | "POLL_MAX_MS") =>
    envSchema.shape[name].safeParse(env[name]).data;
  if (env.SLACK_APP_TOKEN === undefined && env.SLACK_SIGNING_SECRET === undefined) {
    problems.push(
      "SLACK_SIGNING_SECRET is missing: HTTP mode needs the Signing Secret from Basic Information (or set SLACK_APP_TOKEN for Socket Mode).",
    );
  }
  problems.push(...oauthProblems(env));
  // Both 0 is fine: each server then gets a free port of its own.
  const port = number("PORT");
  if (port !== 0 && port !== undefined && number("METRICS_PORT") === port) {
    problems.push("METRICS_PORT must differ from PORT: /metrics gets a server of its own.");
  }
  const [initial, max] = [number("POLL_INITIAL_MS"), number("POLL_MAX_MS")];
  if (initial !== undefined && max !== undefined && initial > max) {
    problems.push("POLL_INITIAL_MS must not be greater than POLL_MAX_MS.");
  }
  return problems;
}

/** Installs by OAuth: SLACK_CLIENT_ID turns them on and then needs the rest, one line each. */
function oauthProblems(env: Env): string[] {
  const needs = Object.entries(OAUTH_NEEDS);
  if (env.SLACK_CLIENT_ID === undefined) {
    return needs
      .filter(([name]) => env[name] !== undefined)
      .map(
        ([name]) =>
          `${name} is set but SLACK_CLIENT_ID is not: installs by OAuth need the Client ID from Basic Information (or remove ${name} for the single-token mode).`,
      );
  }
  const problems = needs
    .filter(([name]) => env[name] === undefined)
    .map(
      ([name, why]) => `${name} is missing: installs by OAuth (SLACK_CLIENT_ID is set) need ${why}`,
    );
  if (env.SLACK_BOT_TOKEN !== undefined) {
    problems.push(
      "SLACK_BOT_TOKEN and SLACK_CLIENT_ID are both set: choose one mode — a bot token for one workspace, or installs by OAuth (then remove SLACK_BOT_TOKEN; each install's token is kept in the store).",
    );
  }
  return problems;
}

/** The typed configuration, from an environment every check passed. */
function configOf(e: Parsed) {
  return {
    slack: {
      /** Single-token mode's bot token; undefined with installs by OAuth (`oauth`). */
      botToken: e.SLACK_BOT_TOKEN,
      /** Set → Socket Mode; unset → HTTP mode. */
      appToken: e.SLACK_APP_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      apiUrl: e.SLACK_API_URL.endsWith("/") ? e.SLACK_API_URL : `${e.SLACK_API_URL}/`,
      /** The share of each method's rate limit background work spends. */
      rateShare: e.SLACK_RATE_SHARE,
      /** Which of Slack's history rules the app is under. */
      distribution: e.SLACK_APP_DISTRIBUTION,
      /** Installs by OAuth; undefined in the single-token mode. */
      oauth: oauthOf(e),
    },
    port: e.PORT,
    /** Set → `/metrics` is served on this port only (not on `port`). */
    metricsPort: e.METRICS_PORT,
    noteTaker: {
      baseUrl: e.NOTE_TAKER_BASE_URL.replace(/\/+$/, ""),
      apiKey: e.NOTE_TAKER_API_KEY,
      /** Hosts that may serve result links from any address, over http too (exact names). */
      resultLinkHosts: e.RESULT_LINK_HOSTS,
    },
    storeUrl: e.STORE_URL,
    poll: { initialMs: e.POLL_INITIAL_MS, maxMs: e.POLL_MAX_MS },
    retentionDays: e.RETENTION_DAYS,
    /** Fair use: a job over a limit waits in `queued`; Regenerate has a cooldown. */
    fairUse: {
      perUser: e.MAX_ACTIVE_JOBS_PER_USER,
      perChannel: e.MAX_ACTIVE_JOBS_PER_CHANNEL,
      total: e.MAX_ACTIVE_JOBS,
      regenerateCooldownMs: e.REGENERATE_COOLDOWN_SECONDS * 1000,
    },
    /** FFmpeg, for recordings the Note Service would refuse as they are (found at start-up). */
    media: {
      ffmpegPath: e.FFMPEG_PATH,
      ffprobePath: e.FFPROBE_PATH,
      concurrency: e.FFMPEG_CONCURRENCY,
      timeoutMs: e.FFMPEG_TIMEOUT_MINUTES * 60_000,
      maxHours: e.MAX_RECORDING_HOURS,
    },
    logLevel: e.LOG_LEVEL,
  };
}

/** The OAuth part: all of it once SLACK_CLIENT_ID is set (`oauthProblems` made sure). */
function oauthOf(e: Parsed) {
  if (e.SLACK_CLIENT_ID === undefined) return undefined;
  const { SLACK_CLIENT_SECRET, SLACK_STATE_SECRET, SLACK_TOKEN_KEY, SLACK_REDIRECT_URL } = e;
  if (!SLACK_CLIENT_SECRET || !SLACK_STATE_SECRET || !SLACK_TOKEN_KEY || !SLACK_REDIRECT_URL) {
    throw new Error("installs by OAuth without their variables");
  }
  return {
    clientId: e.SLACK_CLIENT_ID,
    clientSecret: SLACK_CLIENT_SECRET,
    stateSecret: SLACK_STATE_SECRET,
    /** The AES-256-GCM key of the installations kept in the store. */
    tokenKey: SLACK_TOKEN_KEY,
    /** The public URL of `/slack/oauth_redirect`. */
    redirectUrl: SLACK_REDIRECT_URL,
  };
}
