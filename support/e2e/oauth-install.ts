import { randomBytes } from "node:crypto";
import type { AuthorizeInstallInput, FakeSlack } from "../fake-slack/create-fake-slack.ts";

/** What a person at Slack's consent page does: which workspace, org-wide, or Cancel. */
export type InstallChoice = Pick<AuthorizeInstallInput, "team" | "enterprise" | "decline">;

/**
 * The first two steps of an install from the app's install page at `origin`:
 * `/slack/install` (which sets the state cookie and sends the browser to Slack), then
 * Slack's consent page (`fake.authorizeInstall`, for `team` or org-wide). Returns the
 * cookie the browser holds and where Slack sends it back (the redirect, with its query).
 */
export async function beginInstall(
  origin: string,
  fake: Pick<FakeSlack, "authorizeInstall">,
  install: InstallChoice = {},
): Promise<{ cookie: string; redirect: URL }> {
  const start = await fetch(`${origin}/slack/install`, { redirect: "manual" });
  const location = start.headers.get("location");
  const cookie = (start.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  if (start.status !== 302 || location === null) {
    throw new Error(`/slack/install answered ${start.status}`);
  }
  return { cookie, redirect: new URL(fake.authorizeInstall({ url: location, ...install })) };
}

/**
 * A person installs the app from its install page at `origin`: {@link beginInstall}, then
 * the redirect back to the app, with the cookie. Returns the page the person sees.
 */
export async function installThroughApp(
  origin: string,
  fake: Pick<FakeSlack, "authorizeInstall">,
  install: InstallChoice = {},
): Promise<{ status: number; page: string }> {
  const { cookie, redirect } = await beginInstall(origin, fake, install);
  const done = await fetch(`${origin}${redirect.pathname}${redirect.search}`, {
    headers: { cookie },
  });
  return { status: done.status, page: await done.text() };
}

/** The app's secrets of installs by OAuth, besides the signing secret. */
export interface OAuthSecrets {
  clientSecret: string;
  stateSecret: string;
  /** SLACK_TOKEN_KEY as configured (base64). */
  tokenKey: string;
}

/** The variables of installs by OAuth (src/config-schema.ts). */
export interface OAuthEnv {
  SLACK_CLIENT_ID: string;
  SLACK_CLIENT_SECRET: string;
  SLACK_STATE_SECRET: string;
  SLACK_TOKEN_KEY: string;
  SLACK_REDIRECT_URL: string;
}

/**
 * The settings of installs by OAuth for an app installed through `fake`: its client id and
 * secret, fresh state secret and token key, and `redirectUrl` (one of the manifest's).
 */
export function oauthEnv(
  fake: Pick<FakeSlack, "oauth">,
  redirectUrl: string,
): { env: OAuthEnv; secrets: OAuthSecrets } {
  const secrets: OAuthSecrets = {
    clientSecret: fake.oauth.clientSecret,
    stateSecret: randomBytes(16).toString("hex"),
    tokenKey: randomBytes(32).toString("base64"),
  };
  return {
    env: {
      SLACK_CLIENT_ID: fake.oauth.clientId,
      SLACK_CLIENT_SECRET: secrets.clientSecret,
      SLACK_STATE_SECRET: secrets.stateSecret,
      SLACK_TOKEN_KEY: secrets.tokenKey,
      SLACK_REDIRECT_URL: redirectUrl,
    },
    secrets,
  };
}

/**
 * Every token the fake issued to the installs of `teamId` (the bot's, and with rotation its
 * refresh token): what the app holds, and must never log or send to a host not Slack's.
 */
export function installTokens(fake: Pick<FakeSlack, "installations">, teamId: string): string[] {
  return fake.installations
    .filter((i) => i.teamId === teamId)
    .flatMap((i) => [i.botToken, i.refreshToken, i.userToken, i.userRefreshToken])
    .filter((t): t is string => t !== undefined && t !== "");
}
