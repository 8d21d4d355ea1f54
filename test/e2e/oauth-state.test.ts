import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALPHA, BETA, GAMMA, workspaces } from "../../support/e2e/oauth-kit.ts";
import {
  type OAuthReplica,
  type OAuthStack,
  startOAuthStack,
} from "../../support/e2e/oauth-stack.ts";
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/*
 * Issue 33: the OAuth state of an install is used once. A person's browser that finished an
 * install still holds its cookie and state for the state's 10 minutes; whoever has them
 * (the browser, a log, a proxy) sent them back with a fresh code of Slack's and installed the
 * app in another workspace. The state is now claimed in the store when the redirect
 * arrives — every replica sharing the store sees the claim — and the cookie is SameSite=Lax:
 * sent on Slack's top-level redirect back, never on another site's embedded request.
 */

/** What the person's browser holds once `/slack/install` sent it to Slack. */
interface Started {
  cookie: string;
  setCookie: string;
  /** Slack's consent page, as the app sent the browser there. */
  authorizeUrl: string;
}

async function start(replica: OAuthReplica): Promise<Started> {
  const res = await fetch(`${replica.origin}/slack/install`, { redirect: "manual" });
  expect(res.status).toBe(302);
  const setCookie = res.headers.get("set-cookie") ?? "";
  return {
    setCookie,
    cookie: setCookie.split(";")[0] ?? "",
    authorizeUrl: res.headers.get("location") ?? "",
  };
}

/** Slack sends the browser back to `replica` with a code for `team` and the state. */
async function back(stack: OAuthStack, replica: OAuthReplica, started: Started, team: string) {
  const to = new URL(stack.fake.authorizeInstall({ url: started.authorizeUrl, team }));
  const res = await fetch(`${replica.origin}${to.pathname}${to.search}`, {
    headers: { cookie: started.cookie },
    redirect: "manual",
  });
  const page = await res.text();
  return { status: res.status, sentence: /<p>(.*)<\/p>/.exec(page)?.[1] ?? page };
}

/** Whether `team` holds an install at Slack, and the app stored one. */
async function installed(stack: OAuthStack, team: string) {
  const keys = await stack.replicas[0]?.app.store.listKeys("installs", `T${team}`);
  return {
    atSlack: stack.fake.installations.some((i) => i.teamId === team && !i.uninstalled),
    stored: (keys ?? []).length > 0,
  };
}

const SPENT = "This install link was already used: start again from the install page.";

describe("the OAuth state (SQLite, one replica)", () => {
  let stack: OAuthStack;
  beforeAll(async () => {
    stack = await startOAuthStack({
      manifest: oauthManifest({}),
      ...workspaces(ALPHA, BETA, GAMMA),
    });
  }, 30_000);
  afterAll(() => stack?.stop());
  const replica = () => stack.replicas[0] as OAuthReplica;

  it("goes in a cookie that is HttpOnly, Secure and SameSite=Lax, for the state's 10 minutes", async () => {
    const started = await start(replica());
    const state = new URL(started.authorizeUrl).searchParams.get("state");
    const [pair, ...attributes] = started.setCookie.split(";").map((a) => a.trim());
    expect(pair).toBe(`slack-app-oauth-state=${state}`);
    expect(attributes.sort()).toEqual([
      "HttpOnly",
      "Max-Age=600",
      "Path=/",
      "SameSite=Lax",
      "Secure",
    ]);
  });

  it("is used once: the cookie and state of a finished install, with a fresh code for another workspace, install nothing", async () => {
    const started = await start(replica());
    expect(await back(stack, replica(), started, ALPHA)).toMatchObject({ status: 200 });
    expect(await installed(stack, ALPHA)).toEqual({ atSlack: true, stored: true });
    // The same cookie and state, a fresh code of Slack's for another workspace.
    expect(await back(stack, replica(), started, BETA)).toEqual({ status: 400, sentence: SPENT });
    expect(await installed(stack, BETA)).toEqual({ atSlack: false, stored: false });
  });

  it("stays spent when the app restarts: the claim is in the store, not the process", async () => {
    const started = await start(replica());
    expect(await back(stack, replica(), started, GAMMA)).toMatchObject({ status: 200 });
    await stack.restart(replica());
    expect(await back(stack, replica(), started, BETA)).toEqual({ status: 400, sentence: SPENT });
    expect(await installed(stack, BETA)).toEqual({ atSlack: false, stored: false });
  });
});

describe.skipIf(!HAS_REDIS_SERVER)("the OAuth state (Redis, two replicas)", () => {
  let redis: PrivateRedis;
  let stack: OAuthStack;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startOAuthStack({
      manifest: oauthManifest({}),
      ...workspaces(ALPHA, BETA),
      replicas: 2,
      storeUrl: redis.url,
    });
  }, 30_000);
  afterAll(async () => {
    await stack?.stop();
    await redis?.stop();
  });

  it("is used once across replicas: begun and finished on one, sent again to the other, refused", async () => {
    const [one, two] = stack.replicas as [OAuthReplica, OAuthReplica];
    const started = await start(one);
    expect(await back(stack, one, started, ALPHA)).toMatchObject({ status: 200 });
    expect(await back(stack, two, started, BETA)).toEqual({ status: 400, sentence: SPENT });
    expect(await installed(stack, BETA)).toEqual({ atSlack: false, stored: false });
  });
});
