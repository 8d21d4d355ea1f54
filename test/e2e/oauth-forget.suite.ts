import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantOf } from "../../src/jobs/index.ts";
import { phrasesInStore, plantWorkspaceData, StoreCalls } from "../../support/e2e/forget-kit.ts";
import {
  ALPHA,
  BETA,
  ENTERPRISE,
  GAMMA,
  jobOf,
  ORG_ONE,
  ORG_TWO,
  populate,
  workspaces,
} from "../../support/e2e/oauth-kit.ts";
import {
  type OAuthReplica,
  type OAuthStack,
  PUBLIC_REDIRECT,
  startOAuthStack,
} from "../../support/e2e/oauth-stack.ts";
import { eventually } from "../../support/e2e/stack.ts";
import { eventCallback } from "../../support/fake-slack/slack-payloads.ts";
import { StoreFault } from "../../support/helpers/failing-store.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/**
 * Forgetting, end to end with installs by OAuth, over HTTP or Socket Mode: the app as
 * `createApp` builds it, installed through its own pages by three workspaces and one
 * organisation org-wide, with the OAuth manifest as shipped (in Socket Mode, the Socket Mode
 * manifest made org-ready the same way). An uninstall (`app_uninstalled`, `tokens_revoked` naming the
 * install's bot user) or a workspace removed from the org (`team_access_revoked`) that
 * arrives while the store fails is kept whole and carried out once the store is back,
 * exactly once: the workspace's job, settings, template and (for an uninstall) its encrypted
 * installation record are gone, down to the bytes of the SQLite files, and every other
 * workspace's are untouched. An uninstall event naming an install this deployment does not
 * have, or a `tokens_revoked` naming another bot, is answered 200 and does nothing.
 */
/** The OAuth manifest as shipped, sending installs back to the stack's redirect URL. */
function shippedOAuthManifest(): Record<string, unknown> {
  const path = new URL("../../manifests/manifest.oauth.json", import.meta.url);
  const manifest = JSON.parse(readFileSync(path, "utf8")) as Record<string, object>;
  return {
    ...manifest,
    oauth_config: { ...manifest.oauth_config, redirect_urls: [PUBLIC_REDIRECT] },
  };
}

/**
 * The Socket Mode manifest made org-ready as the OAuth one is: redirect URLs, org-wide
 * installs, token rotation, and the `team_access_revoked` an org-ready app is sent.
 */
function socketOAuthManifest(): Record<string, unknown> {
  const socket = oauthManifest({ mode: "socket" }).settings as {
    event_subscriptions: { bot_events: string[] };
  };
  const botEvents = [...socket.event_subscriptions.bot_events, "team_access_revoked"];
  return oauthManifest({
    mode: "socket",
    settings: {
      org_deploy_enabled: true,
      token_rotation_enabled: true,
      event_subscriptions: { ...socket.event_subscriptions, bot_events: botEvents },
    },
  });
}

/** The suite, over HTTP (`/slack/events`) or Socket Mode. */
export function forgetting(mode: "http" | "socket"): void {
  const fault = new StoreFault();
  const calls = new StoreCalls();
  let stack: OAuthStack;
  let replica: OAuthReplica;
  /** Each workspace's install key: its own, or the org's. */
  const INSTALL: Record<string, string> = {
    [ALPHA]: `T${ALPHA}`,
    [BETA]: `T${BETA}`,
    [GAMMA]: `T${GAMMA}`,
    [ORG_ONE]: `E${ENTERPRISE}`,
    [ORG_TWO]: `E${ENTERPRISE}`,
  };
  const TEAMS = [ALPHA, BETA, GAMMA, ORG_ONE, ORG_TWO];
  const jobs: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startOAuthStack({
      manifest: mode === "http" ? shippedOAuthManifest() : socketOAuthManifest(),
      ...workspaces(...TEAMS),
      quick: true,
      socketMode: mode === "socket",
      wrapStore: (store) => fault.wrap(calls.wrap(store)),
      // Replayed every few ms while the store still fails.
      journal: { backoff: { baseMs: 20, maxMs: 50 } },
    });
    replica = stack.replicas[0] as OAuthReplica;
    populate(stack, TEAMS);
    for (const team of [ALPHA, BETA, GAMMA])
      expect((await stack.install({ team })).status).toBe(200);
    expect((await stack.install({ enterprise: true })).status).toBe(200);
    for (const team of TEAMS) {
      jobs[team] = (await plantWorkspaceData(stack, INSTALL[team] as string, team)).jobId;
    }
    for (const team of TEAMS) expectPlanted(await phrasesInStore(stack, team));
  }, 60_000);
  afterAll(() => stack?.stop());

  /** The bot user of the live install acting in `team`, at Slack. */
  function botUserOf(team: string): string {
    const install = stack.fake.installations.findLast(
      (i) => !i.uninstalled && !i.isEnterpriseInstall && i.teamId === team,
    );
    if (install === undefined) throw new Error(`no live install of ${team}`);
    return install.botUserId;
  }

  /**
   * Sends an event of `team` as Slack sends it in this mode: signed to `/slack/events`, or
   * over the socket; in the envelope of the install acting there, or stamped `as` given (a
   * workspace or an organisation with no install). Resolves whether it was answered 200
   * (over the socket: acked).
   */
  async function send(
    team: string,
    event: Record<string, unknown>,
    as?: { enterpriseId?: string; isEnterpriseInstall?: boolean; orgLevel?: boolean },
  ): Promise<boolean> {
    if (mode === "http") {
      const sent = await (as === undefined
        ? stack.sendEvent(replica, team, event)
        : stack.sendEvent(replica, team, event, as));
      return sent.status === 200;
    }
    const eventId = `Ev0${randomBytes(5).toString("hex").toUpperCase()}`;
    const envelope =
      as === undefined
        ? stack.fake.team(team).envelope(event)
        : eventCallback(event, { teamId: team, eventId, apiAppId: stack.fake.appId, ...as });
    const socket = stack.fake.socket;
    if (socket === undefined) throw new Error("the stack has no socket");
    return (await socket.send("events_api", envelope)).acked;
  }

  /** How many times the data of `install`'s tenant of `team` was deleted, by the log. */
  function deletions(team: string): number {
    const tenant = JSON.stringify(tenantOf(INSTALL[team] as string, team));
    return replica.logs.filter((l) => l.includes('"workspace data deleted"') && l.includes(tenant))
      .length;
  }

  /** Every phrase of a workspace is there to be found: the search would see it. */
  function expectPlanted(found: Record<string, number>): void {
    for (const [phrase, count] of Object.entries(found)) expect(count, phrase).toBeGreaterThan(0);
  }

  const exists = (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    );

  describe("uninstall events for an install this deployment does not have", () => {
    it("are answered 200 and do nothing: no install, another bot's tokens, an org never installed", async () => {
      const before = { scrub: calls.of("scrub"), delete: calls.of("delete") };
      const never = "T0NEVERINST";
      const sent = [
        await send(never, { type: "app_uninstalled" }, {}),
        await send(
          never,
          { type: "tokens_revoked", tokens: { oauth: [], bot: ["U0NEVERBOT"] } },
          {},
        ),
        // Beta is installed; the tokens revoked are another bot's.
        await send(BETA, { type: "tokens_revoked", tokens: { oauth: [], bot: ["U0OTHERBOT"] } }),
        await send(
          "T0OTHERORG",
          { type: "team_access_revoked", team_ids: ["T0OTHERORG"] },
          { enterpriseId: "E0OTHERORG", isEnterpriseInstall: true, orgLevel: true },
        ),
      ];
      expect(sent).toEqual([true, true, true, true]);
      await replica.app.idle();
      expect({ scrub: calls.of("scrub"), delete: calls.of("delete") }).toEqual(before);
      expect(replica.logs.join("")).not.toContain('"workspace data deleted"');
      for (const team of TEAMS)
        expect((await jobOf(stack, jobs[team] as string))?.stage, team).toBe("naming");
      expect((await replica.app.store.listKeys("installs", "")).sort()).toEqual(
        [`E${ENTERPRISE}`, `T${ALPHA}`, `T${BETA}`, `T${GAMMA}`].sort(),
      );
    });
  });

  describe("an uninstall or a workspace removed while the store fails", () => {
    it("is kept whole and carried out exactly once when the store is back", async () => {
      const journal = stack.journalPath(0);
      // Over HTTP the fake delivers Slack's events to /slack/events; else over the socket.
      if (mode === "http") {
        stack.fake.deliverEvents({
          url: `${replica.origin}/slack/events`,
          signingSecret: stack.env.SLACK_SIGNING_SECRET,
        });
      }
      fault.mode = "all";
      try {
        // Beta uninstalls: Slack sends tokens_revoked (Beta's bot) then app_uninstalled.
        await stack.fake.uninstall({ team: BETA });
        // Gamma's bot token is revoked.
        expect(
          await send(GAMMA, {
            type: "tokens_revoked",
            tokens: { oauth: [], bot: [botUserOf(GAMMA)] },
          }),
        ).toBe(true);
        // Org Two is removed from the org-wide install.
        await stack.fake.revokeTeamAccess(ORG_TWO);
        await stack.fake.deliveriesSettled();
        if (mode === "http") {
          expect(stack.fake.deliveries.map((d) => [d.event.type, d.status])).toEqual([
            ["tokens_revoked", 200],
            ["app_uninstalled", 200],
            ["team_access_revoked", 200],
          ]);
        }
        await eventually(
          async () => ((await exists(journal)) ? await readFile(journal, "utf8") : ""),
          (text) => text.split("\n").filter(Boolean).length === 3,
          { what: "three removals kept" },
        );
      } finally {
        stack.fake.deliverEvents(undefined);
        fault.mode = "none";
      }
      await eventually(
        () => exists(journal),
        (kept) => !kept,
        { what: "the journal replayed" },
      );
      await replica.app.idle();
      // Gone, down to the bytes of the store's files: jobs, settings, templates, records.
      for (const team of [BETA, GAMMA, ORG_TWO]) {
        expect(await jobOf(stack, jobs[team] as string), team).toBeUndefined();
        expect(Object.values(await phrasesInStore(stack, team)), team).toEqual([0, 0, 0]);
        expect(deletions(team), team).toBe(1);
      }
      expect((await replica.app.store.listKeys("installs", "")).sort()).toEqual(
        [`E${ENTERPRISE}`, `T${ALPHA}`].sort(),
      );
      // The other workspaces' data is all there.
      for (const team of [ALPHA, ORG_ONE]) {
        expect((await jobOf(stack, jobs[team] as string))?.stage, team).toBe("naming");
        expectPlanted(await phrasesInStore(stack, team));
        expect(deletions(team), team).toBe(0);
      }
      expect((await replica.app.store.listMembers("teams")).sort()).toEqual(
        [tenantOf(`T${ALPHA}`, ALPHA), tenantOf(`E${ENTERPRISE}`, ORG_ONE)].sort(),
      );
    });
  });
}
