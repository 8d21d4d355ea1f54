import { z } from "zod";
import { DEFAULT_MAX_RECORDING_HOURS } from "./recordings/index.ts";
import { MAKE_ONE, weakKeyReason, weakSecretReason } from "./secret-strength.ts";
import { BACKOFFS } from "./util/backoff.ts";

/**
 * The configuration contract: every variable, its check, its default and (`.describe`) its
 * meaning, from which `npm run docs:config` makes the README's table. Each error message
 * completes a sentence that starts with the variable's name; values arrive trimmed, and an
 * empty one as unset (`config.ts`).
 */

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** How the app reaches its workspaces: it decides the rate of its history reads. */
export const SLACK_DISTRIBUTIONS = ["internal", "marketplace", "distributed"] as const;
export type SlackDistribution = (typeof SLACK_DISTRIBUTIONS)[number];

/** Where the app serves Slack's redirect back from the consent page. */
export const OAUTH_REDIRECT_PATH = "/slack/oauth_redirect";
/** Where an install starts (the "Add to Slack" page). */
export const OAUTH_INSTALL_PATH = "/slack/install";

/** What each variable of installs by OAuth holds, for the line that says it is missing. */
export const OAUTH_NEEDS = {
  SLACK_CLIENT_SECRET: "the Client Secret from Basic Information → App Credentials.",
  SLACK_STATE_SECRET:
    "a random secret of your own, at least 32 characters, that signs the OAuth state (make one with `openssl rand -base64 32`).",
  SLACK_TOKEN_KEY:
    "32 random bytes in base64, which encrypt the installations' tokens in the store (make one with `openssl rand -base64 32`).",
  SLACK_REDIRECT_URL: `the public URL of ${OAUTH_REDIRECT_PATH}, one of the app's Redirect URLs (OAuth & Permissions).`,
} as const;

const PLACEHOLDER = "is still the placeholder from .env.example";

const text = z.string().optional();

/**
 * A secret, refused while it is `.env.example`'s placeholder (`xoxb-your-bot-token`): that
 * would pass every other check and fail only when Slack or the Note Service refuses it.
 */
const secret = (hint: string) =>
  z
    .string({ error: `is missing: ${hint}` })
    .refine((value) => !/your[-_]/i.test(value), { error: `${PLACEHOLDER}: ${hint}`, abort: true });

/** A number in min..max (a whole one unless `fractions`), one message however it is wrong. */
const numberIn = (min: number, max: number, fractions = false) => {
  const error = `must be a ${fractions ? "number" : "whole number"} from ${min} to ${max}.`;
  const number = z.coerce.number({ error });
  return (fractions ? number : number.int({ error })).min(min, { error }).max(max, { error });
};

/** An http(s) URL; the checks after it may read it with `new URL`. */
const httpUrl = (error: string | ((issue: { input?: unknown }) => string)) =>
  z.url({ protocol: /^https?$/, error, abort: true });

function isHostName(host: string): boolean {
  return (
    !host.includes("*") &&
    URL.canParse(`http://${host}/`) &&
    new URL(`http://${host}/`).hostname === host
  );
}

const NOTE_SERVICE_URL =
  "the base URL of the Note Service your provider gave you, including /api/v1/third-party/note-taker (or the emulator's, `npm run emulator`).";

export const envSchema = z.object({
  SLACK_BOT_TOKEN: secret("the Bot User OAuth Token (xoxb-…) from OAuth & Permissions.")
    // A pasted user (xoxp-) or app-level (xapp-) token would start and fail later. A rotating
    // bot token starts xoxe.xoxb-.
    .refine((value) => /^(xoxe\.)?xoxb-/.test(value), {
      error:
        "must be a bot token starting with xoxb- (OAuth & Permissions → Bot User OAuth Token), not a user (xoxp-) or app-level (xapp-) token.",
    })
    .describe(
      "Bot User OAuth Token (`xoxb-…`), from *OAuth & Permissions*; under `slack run` the CLI sets it (or `SLACK_CLI_XOXB`, read when this is unset). Not needed, and not allowed, with `SLACK_CLIENT_ID` (installs by OAuth)",
    ),
  SLACK_APP_TOKEN: secret(
    "an app-level token (xapp-…) with connections:write, from Basic Information → App-Level Tokens.",
  )
    .refine((value) => value.startsWith("xapp-"), {
      error:
        "must be an app-level token starting with xapp- (Basic Information → App-Level Tokens).",
    })
    .optional()
    .describe(
      "App-level token (`xapp-…`, scope `connections:write`); set → Socket Mode, no public URL needed; under `slack run` the CLI sets it (or `SLACK_CLI_XAPP`)",
    ),
  SLACK_SIGNING_SECRET: secret("the Signing Secret from Basic Information.")
    .optional()
    .describe("from *Basic Information*; required in HTTP mode (without `SLACK_APP_TOKEN`)"),
  PORT: numberIn(0, 65535)
    .default(3000)
    .describe(
      "HTTP mode: Slack requests at `POST /slack/events`; `/healthz`, `/readyz`, `/metrics` in both modes",
    ),
  METRICS_PORT: numberIn(0, 65535)
    .optional()
    .describe(
      "set → `/metrics` is served on this port only (keep it off the public address); must differ from `PORT`",
    ),
  SLACK_API_URL: httpUrl("must be an http(s) URL such as https://slack.com/api/.")
    .default("https://slack.com/api/")
    .describe("Web API base (GovSlack, tests)"),
  SLACK_RATE_SHARE: numberIn(0.01, 100, true)
    .default(1)
    .describe(
      "the share of Slack's rate limits this process's background work spends ([Within Slack's limits](docs/operating.md#within-slacks-limits)); with several replicas, 1 divided by their number",
    ),
  SLACK_APP_DISTRIBUTION: z
    .enum(SLACK_DISTRIBUTIONS, {
      error: `must be one of ${SLACK_DISTRIBUTIONS.join(", ")}: internal for an app your organisation built for itself, marketplace once Slack approved it for the Marketplace, distributed when other organisations install it without that approval (Slack then allows its history reads once a minute).`,
    })
    .default("internal")
    .describe(
      "`internal` (your organisation's own app), `marketplace` (approved for the Slack Marketplace) or `distributed` (installed by other organisations without that approval: Slack then allows one history read a minute and 15 messages, [docs/slack-history.md](docs/slack-history.md))",
    ),
  NOTE_TAKER_BASE_URL: httpUrl((issue) =>
    issue.input === undefined
      ? `is missing: ${NOTE_SERVICE_URL}`
      : `must be an http(s) URL: ${NOTE_SERVICE_URL}`,
  )
    // `.env.example`'s `notes.example.com`: no service runs on a documentation host (RFC 2606).
    .refine((value) => !/(^|\.)example\.(com|net|org)$/i.test(new URL(value).hostname), {
      error: `${PLACEHOLDER}: ${NOTE_SERVICE_URL}`,
    })
    .describe("base URL including `/api/v1/third-party/note-taker`"),
  NOTE_TAKER_API_KEY: secret(
    "the Note Service API key (sent as X-API-Key) your provider gave you (or the emulator's).",
  ).describe("sent as `X-API-Key`; never logged, never sent to result links"),
  RESULT_LINK_HOSTS: z
    .string()
    .transform((value) =>
      value
        .toLowerCase()
        .split(/\s*,\s*/)
        .filter((host) => host !== ""),
    )
    .refine((hosts) => hosts.every(isHostName), {
      error: (issue) =>
        `must be host names separated by commas, without scheme, port, path or wildcard (not ${(issue.input as string[]).filter((host) => !isHostName(host)).join(", ")}).`,
    })
    .default([])
    .describe(
      "comma-separated host names (exact, any case) trusted to serve result links from any address and over http, e.g. an internal object store ([Result links](docs/note-service.md#result-links))",
    ),
  STORE_URL: z
    .string()
    .regex(/^(sqlite:\/\/.+|rediss?:\/\/.+|memory:\/\/)$/, {
      error: "must be sqlite://PATH, redis://HOST:PORT or memory://.",
    })
    .default("sqlite://data/meeting-notes.sqlite")
    .describe("`sqlite://PATH`, `redis://HOST:PORT`, `memory://`"),
  POLL_INITIAL_MS: numberIn(10, 600_000)
    .default(BACKOFFS.notePoll.baseMs)
    .describe(
      "the guide's poll schedule: the first wait, doubling up to `POLL_MAX_MS`; the bound of the progress-led polls ([docs/note-service.md](docs/note-service.md))",
    ),
  POLL_MAX_MS: numberIn(10, 3_600_000)
    .default(BACKOFFS.notePoll.maxMs)
    .describe("the guide's poll schedule: the cap of its doubling waits (see `POLL_INITIAL_MS`)"),
  RETENTION_DAYS: numberIn(1, 3650)
    .default(30)
    .describe("finished jobs, dialogs and notes expire after this"),
  MAX_ACTIVE_JOBS_PER_USER: numberIn(1, 10_000)
    .default(3)
    .describe(
      "recordings one person may have downloading or transcribing at once; more wait their turn",
    ),
  MAX_ACTIVE_JOBS_PER_CHANNEL: numberIn(1, 10_000).default(5).describe("the same, per channel"),
  MAX_ACTIVE_JOBS: numberIn(1, 100_000)
    .default(20)
    .describe("the same, for the whole bot (every replica together)"),
  REGENERATE_COOLDOWN_SECONDS: numberIn(0, 86_400)
    .default(60)
    .describe("the shortest time between two Regenerates of one job's notes (`0`: none)"),
  FFMPEG_PATH: text.describe(
    "FFmpeg, to prepare recordings the Note Service would refuse as they are; unset: `ffmpeg` on `PATH`. Looked for once at start-up (logged)",
  ),
  FFPROBE_PATH: text.describe(
    "ffprobe; unset: beside `FFMPEG_PATH` when that is a path, else `ffprobe` on `PATH`",
  ),
  FFMPEG_CONCURRENCY: numberIn(1, 64)
    .default(1)
    .describe(
      "FFmpeg processes preparing recordings at once, per process (each takes about a core)",
    ),
  FFMPEG_TIMEOUT_MINUTES: numberIn(1, 1440)
    .default(60)
    .describe(
      "the longest one preparation may run; past it FFmpeg is killed and the job fails with Retry",
    ),
  MAX_RECORDING_HOURS: numberIn(1, 24)
    .default(DEFAULT_MAX_RECORDING_HOURS)
    .describe(
      "the longest recording FFmpeg prepares (1–24); a longer one is refused from its header, before anything is decoded",
    ),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}.` })
    .default("info")
    .describe(LOG_LEVELS.map((level) => `\`${level}\``).join(", ")),
  // Installs by OAuth: SLACK_CLIENT_ID turns them on, and `config.ts` then requires the rest.
  SLACK_CLIENT_ID: text.describe(
    "set → [installs by OAuth](docs/oauth-installs.md) instead of one bot token; from *Basic Information → App Credentials*",
  ),
  SLACK_CLIENT_SECRET: secret(OAUTH_NEEDS.SLACK_CLIENT_SECRET)
    .optional()
    .describe("from *Basic Information → App Credentials*; required with `SLACK_CLIENT_ID`"),
  SLACK_STATE_SECRET: secret(OAUTH_NEEDS.SLACK_STATE_SECRET)
    .refine((value) => weakSecretReason(value) === undefined, {
      error: (issue) => `${weakSecretReason(issue.input as string)}: ${MAKE_ONE}`,
    })
    .optional()
    .describe(
      "a random secret of your own, at least 32 characters, that signs the OAuth state (`openssl rand -base64 32`); required with `SLACK_CLIENT_ID`",
    ),
  SLACK_TOKEN_KEY: z
    .base64({ error: `must be ${OAUTH_NEEDS.SLACK_TOKEN_KEY}` })
    .transform((value) => Buffer.from(value, "base64"))
    .refine((key) => key.length === 32, {
      error: `must be ${OAUTH_NEEDS.SLACK_TOKEN_KEY}`,
      abort: true,
    })
    // A key anyone can guess (all zeros, a phrase) encrypts nothing.
    .refine((key) => weakKeyReason(key) === undefined, {
      error: (issue) => `${weakKeyReason(issue.input as Buffer)}: ${MAKE_ONE}`,
    })
    .optional()
    .describe(
      "32 random bytes (not a phrase), base64, that encrypt the installs' tokens in the store (`openssl rand -base64 32`); keep it: without it the stored installs cannot be read. Required with `SLACK_CLIENT_ID`",
    ),
  SLACK_REDIRECT_URL: httpUrl(
    `must be the public http(s) URL of ${OAUTH_REDIRECT_PATH}, as listed in the app's OAuth & Permissions → Redirect URLs.`,
  )
    .refine((value) => new URL(value).pathname === OAUTH_REDIRECT_PATH, {
      error: `must end with ${OAUTH_REDIRECT_PATH}: the app serves Slack's redirect there.`,
    })
    .optional()
    .describe(
      "the public URL of `/slack/oauth_redirect` (`https://<your-host>/slack/oauth_redirect`), one of the app's *Redirect URLs*; required with `SLACK_CLIENT_ID`",
    ),
});

/** Installs by OAuth: each install's bot token is kept in the store, none comes from here. */
export const oauthEnvSchema = envSchema.extend({
  SLACK_BOT_TOKEN: envSchema.shape.SLACK_BOT_TOKEN.optional(),
});
