import { type OAuthConfig, oauthConfigOf, oauthProblems } from "./config-oauth.ts";
import {
  envSchema,
  type LOG_LEVELS,
  oauthEnvSchema,
  type SlackDistribution,
} from "./config-schema.ts";

/**
 * Reads the configuration contract (`config-schema.ts`). This module is the only reader of
 * the environment: everything else receives a typed `Config`.
 */

/**
 * Checks that involve several variables. They run on the raw values even when single
 * variables are bad, so the person starting the bot sees every problem at once.
 */
function crossFieldProblems(env: Record<string, string | undefined>): string[] {
  const set = (name: string) => (env[name] ?? "").trim() !== "";
  const problems: string[] = [];
  if (!set("SLACK_APP_TOKEN") && !set("SLACK_SIGNING_SECRET")) {
    problems.push(
      "SLACK_SIGNING_SECRET is missing: HTTP mode needs the Signing Secret from Basic Information (or set SLACK_APP_TOKEN for Socket Mode).",
    );
  }
  problems.push(...oauthProblems(env));
  // Checked here, not by Slack's first refusal: a pasted user (xoxp-) or app-level (xapp-)
  // token would start and fail later. A rotating bot token starts xoxe.xoxb-.
  if (set("SLACK_BOT_TOKEN") && !/^(xoxe\.)?xoxb-/.test(env.SLACK_BOT_TOKEN?.trim() ?? "")) {
    problems.push(
      "SLACK_BOT_TOKEN must be a bot token starting with xoxb- (OAuth & Permissions → Bot User OAuth Token), not a user (xoxp-) or app-level (xapp-) token.",
    );
  }
  if (set("SLACK_APP_TOKEN") && !env.SLACK_APP_TOKEN?.trim().startsWith("xapp-")) {
    problems.push(
      "SLACK_APP_TOKEN must be an app-level token starting with xapp- (Basic Information → App-Level Tokens).",
    );
  }
  // Both 0 is fine: each server then gets a free port of its own.
  const port = Number((env.PORT ?? "").trim() || 3000);
  if (set("METRICS_PORT") && Number(env.METRICS_PORT) === port && port !== 0) {
    problems.push("METRICS_PORT must differ from PORT: /metrics gets a server of its own.");
  }
  const initial = Number(env.POLL_INITIAL_MS ?? 2000);
  const max = Number(env.POLL_MAX_MS ?? 15_000);
  if (Number.isFinite(initial) && Number.isFinite(max) && initial > max) {
    problems.push("POLL_INITIAL_MS must not be greater than POLL_MAX_MS.");
  }
  return problems;
}

export type LogLevel = (typeof LOG_LEVELS)[number];

/** The typed configuration of one process. */
export interface Config {
  slack: {
    /** Single-token mode's bot token; undefined with installs by OAuth (`oauth`). */
    botToken: string | undefined;
    /** Set → Socket Mode; unset → HTTP mode. */
    appToken: string | undefined;
    signingSecret: string | undefined;
    apiUrl: string;
    /** SLACK_RATE_SHARE: the share of each method's rate limit background work spends. */
    rateShare: number;
    /** SLACK_APP_DISTRIBUTION: which of Slack's history rules the app is under. */
    distribution: SlackDistribution;
    /** Installs by OAuth (SLACK_CLIENT_ID set); undefined in the single-token mode. */
    oauth: OAuthConfig | undefined;
  };
  port: number;
  /** Set → `/metrics` is served on this port only (not on `port`). */
  metricsPort: number | undefined;
  noteTaker: {
    baseUrl: string;
    apiKey: string;
    /** Hosts that may serve result links from any address, over http too (exact names). */
    resultLinkHosts: readonly string[];
  };
  storeUrl: string;
  poll: { initialMs: number; maxMs: number };
  retentionDays: number;
  /** Fair use: a job over a limit waits in `queued`; Regenerate has a cooldown. */
  fairUse: { perUser: number; perChannel: number; total: number; regenerateCooldownMs: number };
  /** FFmpeg, for recordings the Note Service would refuse as they are (found at start-up). */
  media: {
    ffmpegPath: string | undefined;
    ffprobePath: string | undefined;
    concurrency: number;
    timeoutMs: number;
    /** The longest recording prepared (MAX_RECORDING_HOURS). */
    maxHours: number;
  };
  logLevel: LogLevel;
}

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
  const missing = problems.filter((p) => /^\S+ (is missing|is empty)\b/.test(p)).length;
  if (missing === problems.length) return "the configuration is incomplete.";
  if (missing === 0) return "some settings are invalid.";
  return "the configuration is incomplete and some settings are invalid.";
}

/**
 * Reads and validates the configuration from `env`.
 * @throws {ConfigError} listing every missing or bad variable at once.
 */
export function loadConfig(given: Record<string, string | undefined>): Config {
  const env = withSlackCliTokens(given);
  const oauthMode = (given.SLACK_CLIENT_ID ?? "").trim() !== "";
  const parsed = (oauthMode ? oauthEnvSchema : envSchema).safeParse(env);
  const problems = [
    ...(parsed.error?.issues ?? []).map((issue) => `${issue.path.join(".")} ${issue.message}`),
    ...crossFieldProblems(env),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      appToken: e.SLACK_APP_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      apiUrl: withTrailingSlash(e.SLACK_API_URL),
      rateShare: e.SLACK_RATE_SHARE,
      distribution: e.SLACK_APP_DISTRIBUTION,
      oauth: oauthConfigOf(e),
    },
    port: e.PORT,
    metricsPort: e.METRICS_PORT,
    noteTaker: {
      baseUrl: e.NOTE_TAKER_BASE_URL.replace(/\/+$/, ""),
      apiKey: e.NOTE_TAKER_API_KEY,
      resultLinkHosts: e.RESULT_LINK_HOSTS,
    },
    storeUrl: e.STORE_URL,
    poll: { initialMs: e.POLL_INITIAL_MS, maxMs: e.POLL_MAX_MS },
    retentionDays: e.RETENTION_DAYS,
    fairUse: {
      perUser: e.MAX_ACTIVE_JOBS_PER_USER,
      perChannel: e.MAX_ACTIVE_JOBS_PER_CHANNEL,
      total: e.MAX_ACTIVE_JOBS,
      regenerateCooldownMs: e.REGENERATE_COOLDOWN_SECONDS * 1000,
    },
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

/**
 * Under `slack run` the Slack CLI hands the development app's tokens to the start hook as
 * SLACK_BOT_TOKEN / SLACK_APP_TOKEN, and also as SLACK_CLI_XOXB / SLACK_CLI_XAPP (the only
 * names older CLIs set): https://docs.slack.dev/tools/slack-cli/reference/hooks ("SDK-managed
 * connection"). The usual names win, as the CLI keeps a token already set in the
 * environment; the CLI's own names fill in when those are unset or empty.
 */
function withSlackCliTokens(env: Record<string, string | undefined>) {
  const either = (name: string, cliName: string) =>
    (env[name] ?? "").trim() === "" ? (env[cliName] ?? env[name]) : env[name];
  return {
    ...env,
    SLACK_BOT_TOKEN: either("SLACK_BOT_TOKEN", "SLACK_CLI_XOXB"),
    SLACK_APP_TOKEN: either("SLACK_APP_TOKEN", "SLACK_CLI_XAPP"),
  };
}

function withTrailingSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
