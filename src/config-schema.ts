import { z } from "zod";
import {
  decimal,
  hostList,
  httpUrl,
  integer,
  isExampleHost,
  optionalSecret,
  optionalText,
  PLACEHOLDER,
  requiredSecret,
} from "./config-fields.ts";
import { OAUTH_FIELDS } from "./config-oauth.ts";
import { DEFAULT_MAX_RECORDING_HOURS } from "./recordings/index.ts";

/**
 * The configuration contract: every variable, its check, its default and (`.describe`) what
 * it means. The README's configuration table is made from this (`npm run docs:config`), so
 * a variable is explained here and nowhere else.
 */

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/**
 * How the Slack app reaches its workspaces, which decides the rate of its history reads:
 * `internal` (built for the organisation that runs it) and `marketplace` (approved for the
 * Slack Marketplace) keep Tier 3; `distributed` (installed by other organisations without
 * Marketplace approval) gets `conversations.history` and `conversations.replies` at 1
 * request a minute and 15 objects a call (src/slack/rate-budget/history-rule.ts).
 */
export const SLACK_DISTRIBUTIONS = ["internal", "marketplace", "distributed"] as const;
export type SlackDistribution = (typeof SLACK_DISTRIBUTIONS)[number];

const BOT_TOKEN_HINT = "the Bot User OAuth Token (xoxb-…) from OAuth & Permissions.";
const BOT_TOKEN_MEANING =
  "Bot User OAuth Token (`xoxb-…`), from *OAuth & Permissions*; under `slack run` the CLI sets it (or `SLACK_CLI_XOXB`, read when this is unset). Not needed, and not allowed, with `SLACK_CLIENT_ID` (installs by OAuth)";

const withDefault =
  <T>(fallback: T) =>
  (value: T | undefined) =>
    value ?? fallback;

export const envSchema = z.object({
  SLACK_BOT_TOKEN: requiredSecret(BOT_TOKEN_HINT).describe(BOT_TOKEN_MEANING),
  SLACK_APP_TOKEN: optionalSecret(
    "an app-level token (xapp-…) with connections:write, from Basic Information → App-Level Tokens.",
  ).describe(
    "App-level token (`xapp-…`, scope `connections:write`); set → Socket Mode, no public URL needed; under `slack run` the CLI sets it (or `SLACK_CLI_XAPP`)",
  ),
  SLACK_SIGNING_SECRET: optionalSecret("the Signing Secret from Basic Information.").describe(
    "from *Basic Information*; required in HTTP mode (without `SLACK_APP_TOKEN`)",
  ),
  PORT: integer(3000, 0, 65535, "the port of the HTTP server.").describe(
    "HTTP mode: Slack requests at `POST /slack/events`; `/healthz`, `/readyz`, `/metrics` in both modes",
  ),
  METRICS_PORT: integer(undefined, 0, 65535, "the port that serves /metrics alone.").describe(
    "set → `/metrics` is served on this port only (keep it off the public address); must differ from `PORT`",
  ),
  SLACK_API_URL: optionalText
    .pipe(
      z
        .url({
          protocol: /^https?$/,
          error: "must be an http(s) URL such as https://slack.com/api/.",
        })
        .optional(),
    )
    .transform(withDefault("https://slack.com/api/"))
    .describe("Web API base (GovSlack, tests)"),
  SLACK_RATE_SHARE: decimal(
    1,
    0.01,
    100,
    "the share of Slack's rate limits this process spends on background work (1: all of each tier's; with several replicas, 1 divided by their number).",
  ).describe(
    "the share of Slack's rate limits this process's background work spends ([Within Slack's limits](docs/operating.md#within-slacks-limits)); with several replicas, 1 divided by their number",
  ),
  SLACK_APP_DISTRIBUTION: optionalText
    .pipe(
      z
        .enum(SLACK_DISTRIBUTIONS, {
          error: `must be one of ${SLACK_DISTRIBUTIONS.join(", ")}: internal for an app your organisation built for itself, marketplace once Slack approved it for the Marketplace, distributed when other organisations install it without that approval (Slack then allows its history reads once a minute).`,
        })
        .optional(),
    )
    .transform(withDefault<SlackDistribution>("internal"))
    .describe(
      "`internal` (your organisation's own app), `marketplace` (approved for the Slack Marketplace) or `distributed` (installed by other organisations without that approval: Slack then allows one history read a minute and 15 messages, [docs/slack-history.md](docs/slack-history.md))",
    ),
  NOTE_TAKER_BASE_URL: httpUrl(
    "the Note Service base URL, including /api/v1/third-party/note-taker.",
  )
    .refine((value) => !isExampleHost(value), {
      error: `${PLACEHOLDER}: the address of the Note Service your provider gave you, including /api/v1/third-party/note-taker (or the emulator's, \`npm run emulator\`).`,
    })
    .describe("base URL including `/api/v1/third-party/note-taker`"),
  NOTE_TAKER_API_KEY: requiredSecret(
    "the Note Service API key (sent as X-API-Key) your provider gave you (or the emulator's).",
  ).describe("sent as `X-API-Key`; never logged, never sent to result links"),
  RESULT_LINK_HOSTS: hostList(
    "hosts trusted to serve the Note Service's result links from any address, over http too.",
  ).describe(
    "comma-separated host names (exact, any case) trusted to serve result links from any address and over http, e.g. an internal object store ([Result links](docs/note-service.md#result-links))",
  ),
  STORE_URL: optionalText
    .pipe(
      z
        .string()
        .regex(/^(sqlite:\/\/.+|rediss?:\/\/.+|memory:\/\/)$/, {
          error: "must be sqlite://PATH, redis://HOST:PORT or memory://.",
        })
        .optional(),
    )
    .transform(withDefault("sqlite://data/meeting-notes.sqlite"))
    .describe("`sqlite://PATH`, `redis://HOST:PORT`, `memory://`"),
  POLL_INITIAL_MS: integer(2000, 10, 600_000, "the first poll delay in milliseconds.").describe(
    "the guide's poll schedule: the first wait, doubling up to `POLL_MAX_MS`; the bound of the progress-led polls ([docs/note-service.md](docs/note-service.md))",
  ),
  POLL_MAX_MS: integer(15_000, 10, 3_600_000, "the longest poll delay in milliseconds.").describe(
    "the guide's poll schedule: the cap of its doubling waits (see `POLL_INITIAL_MS`)",
  ),
  RETENTION_DAYS: integer(30, 1, 3650, "how many days finished jobs are kept.").describe(
    "finished jobs, dialogs and notes expire after this",
  ),
  MAX_ACTIVE_JOBS_PER_USER: integer(
    3,
    1,
    10_000,
    "recordings one person may have downloading or transcribing at once.",
  ).describe(
    "recordings one person may have downloading or transcribing at once; more wait their turn",
  ),
  MAX_ACTIVE_JOBS_PER_CHANNEL: integer(
    5,
    1,
    10_000,
    "recordings one channel may have downloading or transcribing at once.",
  ).describe("the same, per channel"),
  MAX_ACTIVE_JOBS: integer(
    20,
    1,
    100_000,
    "recordings the whole bot downloads or transcribes at once.",
  ).describe("the same, for the whole bot (every replica together)"),
  REGENERATE_COOLDOWN_SECONDS: integer(
    60,
    0,
    86_400,
    "the shortest time between two Regenerates of one job's notes.",
  ).describe("the shortest time between two Regenerates of one job's notes (`0`: none)"),
  FFMPEG_PATH: optionalText.describe(
    "FFmpeg, to prepare recordings the Note Service would refuse as they are; unset: `ffmpeg` on `PATH`. Looked for once at start-up (logged)",
  ),
  FFPROBE_PATH: optionalText.describe(
    "ffprobe; unset: beside `FFMPEG_PATH` when that is a path, else `ffprobe` on `PATH`",
  ),
  FFMPEG_CONCURRENCY: integer(
    1,
    1,
    64,
    "FFmpeg processes that may prepare recordings at once.",
  ).describe(
    "FFmpeg processes preparing recordings at once, per process (each takes about a core)",
  ),
  FFMPEG_TIMEOUT_MINUTES: integer(
    60,
    1,
    1440,
    "the longest one recording's preparation by FFmpeg may take, in minutes.",
  ).describe(
    "the longest one preparation may run; past it FFmpeg is killed and the job fails with Retry",
  ),
  MAX_RECORDING_HOURS: integer(
    DEFAULT_MAX_RECORDING_HOURS,
    1,
    24,
    "the longest recording FFmpeg prepares, in hours; a longer one is refused before it is decoded.",
  ).describe(
    "the longest recording FFmpeg prepares (1–24); a longer one is refused from its header, before anything is decoded",
  ),
  LOG_LEVEL: optionalText
    .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}.` }).optional())
    .transform(withDefault<(typeof LOG_LEVELS)[number]>("info"))
    .describe(LOG_LEVELS.map((level) => `\`${level}\``).join(", ")),
  ...OAUTH_FIELDS,
});

/**
 * Installs by OAuth (SLACK_CLIENT_ID set): no bot token from the environment; each
 * workspace's, or organisation's, comes from its install and is kept in the store.
 */
export const oauthEnvSchema = envSchema.extend({
  SLACK_BOT_TOKEN: optionalSecret(BOT_TOKEN_HINT).describe(BOT_TOKEN_MEANING),
});
