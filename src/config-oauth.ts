import { z } from "zod";
import { optionalSecret, optionalText } from "./config-fields.ts";
import { MAKE_ONE, weakKeyReason, weakSecretReason } from "./secret-strength.ts";

/**
 * The variables of installs by OAuth, part of the configuration contract
 * (`config-schema.ts`, which the README's table is made from). Setting SLACK_CLIENT_ID turns the mode on; the others are then required.
 */

/** Where the app serves Slack's redirect back from the consent page (`http-surface` route). */
export const OAUTH_REDIRECT_PATH = "/slack/oauth_redirect";
/** Where an install starts (the "Add to Slack" page). */
export const OAUTH_INSTALL_PATH = "/slack/install";

const TOKEN_KEY_HINT =
  "32 random bytes in base64, which encrypt the installations' tokens in the store (make one with `openssl rand -base64 32`).";
const STATE_SECRET_HINT =
  "a random secret of your own, at least 32 characters, that signs the OAuth state (make one with `openssl rand -base64 32`).";

export const OAUTH_FIELDS = {
  SLACK_CLIENT_ID: optionalText.describe(
    "set → [installs by OAuth](docs/oauth-installs.md) instead of one bot token; from *Basic Information → App Credentials*",
  ),
  SLACK_CLIENT_SECRET: optionalSecret(
    "the Client Secret from Basic Information → App Credentials.",
  ).describe("from *Basic Information → App Credentials*; required with `SLACK_CLIENT_ID`"),
  SLACK_STATE_SECRET: optionalSecret(STATE_SECRET_HINT)
    .superRefine((value, ctx) => {
      const weak = value === undefined ? undefined : weakSecretReason(value);
      if (weak !== undefined) ctx.addIssue({ code: "custom", message: `${weak}: ${MAKE_ONE}` });
    })
    .describe(
      "a random secret of your own, at least 32 characters, that signs the OAuth state (`openssl rand -base64 32`); required with `SLACK_CLIENT_ID`",
    ),
  SLACK_TOKEN_KEY: optionalText
    .transform((value, ctx): Buffer | undefined => {
      if (value === undefined) return undefined;
      const key = Buffer.from(value, "base64");
      // Base64 that does not round-trip is not base64 (Buffer.from skips what it cannot read).
      if (key.length !== 32 || key.toString("base64") !== value) {
        ctx.addIssue({ code: "custom", message: `must be ${TOKEN_KEY_HINT}` });
        return z.NEVER;
      }
      // A key anyone can guess (all zeros, a phrase) encrypts nothing.
      const weak = weakKeyReason(key);
      if (weak !== undefined) {
        ctx.addIssue({ code: "custom", message: `${weak}: ${MAKE_ONE}` });
        return z.NEVER;
      }
      return key;
    })
    .describe(
      "32 random bytes (not a phrase), base64, that encrypt the installs' tokens in the store (`openssl rand -base64 32`); keep it: without it the stored installs cannot be read. Required with `SLACK_CLIENT_ID`",
    ),
  SLACK_REDIRECT_URL: optionalText
    .pipe(
      z
        .url({
          protocol: /^https?$/,
          error: `must be the public http(s) URL of ${OAUTH_REDIRECT_PATH}, as listed in the app's OAuth & Permissions → Redirect URLs.`,
        })
        .refine(
          (value) => !URL.canParse(value) || new URL(value).pathname === OAUTH_REDIRECT_PATH,
          {
            error: `must end with ${OAUTH_REDIRECT_PATH}: the app serves Slack's redirect there.`,
          },
        )
        .optional(),
    )
    .describe(
      "the public URL of `/slack/oauth_redirect` (`https://<your-host>/slack/oauth_redirect`), one of the app's *Redirect URLs*; required with `SLACK_CLIENT_ID`",
    ),
};

/** The OAuth part of `Config.slack`. */
export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** SLACK_TOKEN_KEY: the AES-256-GCM key of the installations kept in the store. */
  tokenKey: Buffer;
  /** The public URL of `/slack/oauth_redirect`. */
  redirectUrl: string;
}

const REQUIRED: ReadonlyArray<[name: string, why: string]> = [
  ["SLACK_CLIENT_SECRET", "the Client Secret from Basic Information → App Credentials."],
  ["SLACK_STATE_SECRET", STATE_SECRET_HINT],
  ["SLACK_TOKEN_KEY", TOKEN_KEY_HINT],
  [
    "SLACK_REDIRECT_URL",
    `the public URL of ${OAUTH_REDIRECT_PATH}, one of the app's Redirect URLs (OAuth & Permissions).`,
  ],
];

/** What is wrong with the OAuth variables taken together: one line each. */
export function oauthProblems(env: Record<string, string | undefined>): string[] {
  const set = (name: string) => (env[name] ?? "").trim() !== "";
  if (!set("SLACK_CLIENT_ID")) {
    return REQUIRED.filter(([name]) => set(name)).map(
      ([name]) =>
        `${name} is set but SLACK_CLIENT_ID is not: installs by OAuth need the Client ID from Basic Information (or remove ${name} for the single-token mode).`,
    );
  }
  const problems = REQUIRED.filter(([name]) => !set(name)).map(
    ([name, why]) => `${name} is missing: installs by OAuth (SLACK_CLIENT_ID is set) need ${why}`,
  );
  if (set("SLACK_BOT_TOKEN")) {
    problems.push(
      "SLACK_BOT_TOKEN and SLACK_CLIENT_ID are both set: choose one mode — a bot token for one workspace, or installs by OAuth (then remove SLACK_BOT_TOKEN; each install's token is kept in the store).",
    );
  }
  return problems;
}

/** The OAuth part of a parsed environment, once every check passed. */
export function oauthConfigOf(e: {
  SLACK_CLIENT_ID?: string | undefined;
  SLACK_CLIENT_SECRET?: string | undefined;
  SLACK_STATE_SECRET?: string | undefined;
  SLACK_TOKEN_KEY?: Buffer | undefined;
  SLACK_REDIRECT_URL?: string | undefined;
}): OAuthConfig | undefined {
  if (e.SLACK_CLIENT_ID === undefined) return undefined;
  if (
    e.SLACK_CLIENT_SECRET === undefined ||
    e.SLACK_STATE_SECRET === undefined ||
    e.SLACK_TOKEN_KEY === undefined ||
    e.SLACK_REDIRECT_URL === undefined
  ) {
    // oauthProblems refused these already; reaching here is a bug of the checks.
    throw new Error("installs by OAuth without their variables");
  }
  return {
    clientId: e.SLACK_CLIENT_ID,
    clientSecret: e.SLACK_CLIENT_SECRET,
    stateSecret: e.SLACK_STATE_SECRET,
    tokenKey: e.SLACK_TOKEN_KEY,
    redirectUrl: e.SLACK_REDIRECT_URL,
  };
}
