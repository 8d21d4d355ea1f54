import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoCapabilityInLog } from "../../support/e2e/log-secrets.ts";
import { type OAuthStack, startOAuthStack } from "../../support/e2e/oauth-stack.ts";
import { appHomeOpenedEvent } from "../../support/fake-slack/slack-payloads.ts";
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/**
 * Token rotation across two replicas of the app on one Redis (a redis-server of the test's
 * own: the app has no key prefix setting, and two runs sharing a Redis would share their
 * installs and leases). An install whose token is about to expire is refreshed once, under
 * the store's lease, whichever replica's request comes first; both go on with the new
 * token. A refresh token Slack refuses marks the install revoked, said once in the log.
 */
const ALPHA = "T0ALPHA";
const BETA = "T0BETA";

describe.skipIf(!HAS_REDIS_SERVER)("token rotation on two replicas", () => {
  let redis: PrivateRedis;
  let stack: OAuthStack;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startOAuthStack({
      manifest: oauthManifest({ settings: { token_rotation_enabled: true } }),
      teams: [
        { id: ALPHA, name: "Alpha" },
        { id: BETA, name: "Beta" },
      ],
      replicas: 2,
      storeUrl: redis.url,
    });
    for (const team of [ALPHA, BETA]) {
      stack.fake.team(team).addUser({ id: `U0${team}`, name: "p", real_name: "P" });
    }
  }, 30_000);
  afterAll(async () => {
    await stack?.stop();
    await redis?.stop();
  });

  const replica = (i: number) => {
    const found = stack.replicas[i];
    if (found === undefined) throw new Error(`no replica ${i}`);
    return found;
  };
  const installOf = (team: string) => {
    const found = stack.fake.installations.findLast((i) => !i.uninstalled && i.teamId === team);
    if (found === undefined) throw new Error(`${team} is not installed at the fake`);
    return found;
  };
  const publishTokens = (user: string) =>
    stack.fake
      .callsTo("views.publish")
      .filter((c) => c.args.user_id === user)
      .map((c) => c.headers.authorization?.replace(/^Bearer /, ""));

  it("refreshes a token about to expire once across both replicas, and both go on with the new one", async () => {
    // Issued for a minute: within the two hours before expiry the app refreshes in.
    stack.fake.knobs.tokenExpiresIn = 60;
    expect((await stack.install({ team: ALPHA }, replica(1))).status).toBe(200);
    stack.fake.knobs.tokenExpiresIn = undefined;
    const first = installOf(ALPHA).botToken;
    expect(first).toMatch(/^xoxe\.xoxb-1-/);

    // Both replicas get a request of Alpha at once.
    const sent = await Promise.all(
      [0, 1].map((i) => stack.sendEvent(replica(i), ALPHA, appHomeOpenedEvent(`U0${ALPHA}`))),
    );
    expect(sent.map((s) => s.status)).toEqual([200, 200]);
    await Promise.all([replica(0).app.idle(), replica(1).app.idle()]);
    expect(installOf(ALPHA).refreshes).toBe(1);
    const fresh = installOf(ALPHA).botToken;
    expect(fresh).not.toBe(first);
    expect(publishTokens(`U0${ALPHA}`)).toEqual([fresh, fresh]);

    // And later requests, to either, use it without refreshing again.
    for (const i of [0, 1]) {
      expect(
        (await stack.sendEvent(replica(i), ALPHA, appHomeOpenedEvent(`U0${ALPHA}`))).status,
      ).toBe(200);
      await replica(i).app.idle();
    }
    expect(installOf(ALPHA).refreshes).toBe(1);
    expect(publishTokens(`U0${ALPHA}`)).toEqual([fresh, fresh, fresh, fresh]);
    const refreshed = [0, 1].flatMap((i) =>
      replica(i).logs.filter((l) => l.includes("refreshed the bot token of an installation")),
    );
    expect(refreshed).toHaveLength(1);
    for (const i of [0, 1]) {
      expectNoCapabilityInLog(replica(i).logs.join(""), {
        fake: stack.fake,
        secrets: [first, fresh, ...stack.secrets()],
        handedOut: ["token", "refresh_token", "oauth_code", "oauth_state"],
      });
    }
  });

  it("marks an install revoked when Slack refuses its refresh token: one sentence in the log, its requests refused", async () => {
    stack.fake.knobs.tokenExpiresIn = 60;
    expect((await stack.install({ team: BETA }, replica(0))).status).toBe(200);
    stack.fake.knobs.tokenExpiresIn = undefined;
    stack.fake.revokeRefreshToken(installOf(BETA).refreshToken ?? "");

    for (const i of [0, 1, 0]) {
      const sent = await stack.sendEvent(replica(i), BETA, appHomeOpenedEvent(`U0${BETA}`));
      expect(sent.status).toBe(401);
    }
    const said = [0, 1].flatMap((i) =>
      replica(i).logs.filter((l) => l.includes("revoked the tokens of installation TT0BETA")),
    );
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0] ?? "{}")).toMatchObject({
      level: 50,
      install: "TT0BETA",
      slackError: "invalid_refresh_token",
      msg: "Slack revoked the tokens of installation TT0BETA (invalid_refresh_token): the bot stops working there until it is installed again from /slack/install.",
    });
    expect(publishTokens(`U0${BETA}`)).toEqual([]);
    // Alpha is not touched.
    expect(
      (await stack.sendEvent(replica(1), ALPHA, appHomeOpenedEvent(`U0${ALPHA}`))).status,
    ).toBe(200);
  });
});
