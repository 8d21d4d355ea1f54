import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoCapabilityInLog } from "../../support/e2e/log-secrets.ts";
import {
  ALPHA,
  BETA,
  ENTERPRISE,
  ORG_ONE,
  ORG_TWO,
  workspaces,
} from "../../support/e2e/oauth-kit.ts";
import { type OAuthStack, startOAuthStack } from "../../support/e2e/oauth-stack.ts";
import { appHomeOpenedEvent } from "../../support/fake-slack/slack-payloads.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/**
 * Installs by OAuth, end to end over real HTTP: the app as `createApp` builds it installs
 * through its own `/slack/install` and `/slack/oauth_redirect` into several workspaces of a
 * fake Slack and one Enterprise Grid organisation, and authorises each workspace's events
 * with that workspace's own token (the org's for an org-wide install); a workspace that did
 * not install it is refused.
 */

let stack: OAuthStack;

beforeAll(async () => {
  stack = await startOAuthStack({
    manifest: oauthManifest({ settings: { org_deploy_enabled: true } }),
    ...workspaces(ALPHA, BETA, ORG_ONE, ORG_TWO),
  });
  for (const team of [ALPHA, BETA, ORG_ONE, ORG_TWO]) {
    stack.fake.team(team).addUser({ id: `U0${team}`, name: "p", real_name: `Person of ${team}` });
  }
}, 30_000);
afterAll(() => stack?.stop());

/** The token the fake's `views.publish` calls for `user` carried, and their team_id. */
function publishesFor(user: string): { token: string | undefined; teamId: unknown }[] {
  return stack.fake
    .callsTo("views.publish")
    .filter((c) => c.args.user_id === user)
    .map((c) => ({
      token: c.headers.authorization?.replace(/^Bearer /, ""),
      teamId: c.args.team_id,
    }));
}

function liveInstall(match: (i: (typeof stack.fake.installations)[number]) => boolean) {
  const found = stack.fake.installations.findLast((i) => !i.uninstalled && match(i));
  if (found === undefined) throw new Error("no such install at the fake");
  return found;
}

describe("installs by OAuth", () => {
  it("serves /slack/install: to the consent page of the Slack in SLACK_API_URL, with the manifest's scopes, a state cookie and the redirect URL", async () => {
    const [replica] = stack.replicas;
    const start = await fetch(`${replica?.origin}/slack/install`, { redirect: "manual" });
    expect(start.status).toBe(302);
    const url = new URL(start.headers.get("location") ?? "");
    // The test Slack's own host, as slack.com's for https://slack.com/api/.
    expect(stack.env.SLACK_API_URL).toBe(stack.fake.apiUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${stack.fake.origin}/oauth/v2/authorize`);
    expect(url.searchParams.get("client_id")).toBe(stack.fake.oauth.clientId);
    expect(url.searchParams.get("redirect_uri")).toBe(stack.env.SLACK_REDIRECT_URL);
    const manifest = oauthManifest({}) as { oauth_config: { scopes: { bot: string[] } } };
    expect(url.searchParams.get("scope")?.split(",").sort()).toEqual(
      [...manifest.oauth_config.scopes.bot].sort(),
    );
    const cookie = start.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^slack-app-oauth-state=[^;]+;.*HttpOnly/);
    expect(cookie.split(";")[0]).toBe(`slack-app-oauth-state=${url.searchParams.get("state")}`);
  });

  it("installs two workspaces; each one's events are authorised with its own token; a third is refused", async () => {
    for (const team of [ALPHA, BETA]) {
      const done = await stack.install({ team });
      expect(done).toMatchObject({ status: 200 });
      expect(done.page).toContain("Meeting Notes is installed.");
      expect(done.page).not.toMatch(/xox|Error|at /);
    }
    const [replica] = stack.replicas;
    if (replica === undefined) throw new Error("no replica");
    for (const team of [ALPHA, BETA]) {
      const sent = await stack.sendEvent(replica, team, appHomeOpenedEvent(`U0${team}`));
      expect(sent.status).toBe(200);
    }
    await replica.app.idle();
    const alpha = liveInstall((i) => i.teamId === ALPHA);
    const beta = liveInstall((i) => i.teamId === BETA);
    expect(alpha.botToken).not.toBe(beta.botToken);
    expect(publishesFor(`U0${ALPHA}`)).toEqual([{ token: alpha.botToken, teamId: ALPHA }]);
    expect(publishesFor(`U0${BETA}`)).toEqual([{ token: beta.botToken, teamId: BETA }]);

    // The fake's first workspace has the app installed by hand, not through this
    // deployment: nothing of it is stored here, so its events are refused.
    const before = stack.fake.calls.length;
    const refused = await stack.sendEvent(replica, "T0FAKE", appHomeOpenedEvent("U0NOBODY"));
    expect(refused.status).toBe(401);
    await replica.app.idle();
    expect(stack.fake.calls.slice(before)).toEqual([]);
    // The tokens are nowhere in the log, nor the installs' codes and states.
    const logs = replica.logs.join("");
    expect(logs).toContain('"install":"TT0ALPHA"');
    expectNoCapabilityInLog(logs, {
      fake: stack.fake,
      secrets: [alpha.botToken, beta.botToken, ...stack.secrets()],
      handedOut: ["token", "oauth_code", "oauth_state"],
    });
  });

  it("an org-wide install is stored under its enterprise and authorises events of two workspaces of the org", async () => {
    const done = await stack.install({ enterprise: true });
    expect(done.status).toBe(200);
    expect(await stack.replicas[0]?.app.store.listKeys("installs", "E")).toEqual([
      `E${ENTERPRISE}`,
    ]);
    const org = liveInstall((i) => i.isEnterpriseInstall);
    const [replica] = stack.replicas;
    if (replica === undefined) throw new Error("no replica");
    for (const team of [ORG_ONE, ORG_TWO]) {
      const sent = await stack.sendEvent(replica, team, appHomeOpenedEvent(`U0${team}`));
      expect(sent.status).toBe(200);
    }
    await replica.app.idle();
    // One org token, and each call says which workspace it acts in.
    expect(publishesFor(`U0${ORG_ONE}`)).toEqual([{ token: org.botToken, teamId: ORG_ONE }]);
    expect(publishesFor(`U0${ORG_TWO}`)).toEqual([{ token: org.botToken, teamId: ORG_TWO }]);
    // A workspace of the org claiming a workspace install of its own has none.
    const refused = await stack.sendEvent(replica, ORG_ONE, appHomeOpenedEvent(`U0${ORG_ONE}`), {
      enterpriseId: ENTERPRISE,
      isEnterpriseInstall: false,
    });
    expect(refused.status).toBe(401);
  });

  it("shows one plain sentence when the person cancels or the state is not theirs", async () => {
    const declined = await stack.install({ team: ALPHA, decline: true });
    expect(declined.page).toContain("Meeting Notes was not installed");
    const [replica] = stack.replicas;
    const start = await fetch(`${replica?.origin}/slack/install`, { redirect: "manual" });
    const back = new URL(
      stack.fake.authorizeInstall({ url: start.headers.get("location") ?? "", team: ALPHA }),
    );
    // No state cookie: someone else's link.
    const forged = await fetch(`${replica?.origin}${back.pathname}${back.search}`);
    expect(forged.status).toBe(400);
    const page = await forged.text();
    expect(page).toContain("Meeting Notes could not be installed.");
    expect(page).not.toMatch(/state|Error|stack/i);
  });

  it("forgets exactly the uninstalled install's record", async () => {
    const [replica] = stack.replicas;
    if (replica === undefined) throw new Error("no replica");
    stack.fake.deliverEvents({
      url: `${replica.origin}/slack/events`,
      signingSecret: stack.env.SLACK_SIGNING_SECRET,
    });
    await stack.fake.uninstall({ team: BETA });
    await stack.fake.deliveriesSettled();
    await replica.app.idle();
    const keys = await replica.app.store.listKeys("installs", "");
    expect(keys.sort()).toEqual([`E${ENTERPRISE}`, `T${ALPHA}`]);
    const refused = await stack.sendEvent(replica, BETA, appHomeOpenedEvent(`U0${BETA}`), {});
    expect(refused.status).toBe(401);
    const still = await stack.sendEvent(replica, ALPHA, appHomeOpenedEvent(`U0${ALPHA}`));
    expect(still.status).toBe(200);
  });
});
