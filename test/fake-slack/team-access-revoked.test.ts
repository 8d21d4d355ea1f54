import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { readFixture } from "../fixtures/slack-payloads/index.ts";
import {
  api,
  authorizeUrl,
  oauthAccess,
  oauthManifest,
  REDIRECT,
  recordingApp,
} from "./installs.helpers.ts";

/**
 * An org admin removing one workspace from an org-wide install: the token no longer acts
 * there, and an org-ready app that subscribes to it is sent `team_access_revoked`
 * (https://api.slack.com/events/team_access_revoked).
 */
const SECRET = "team-access-secret";
const ONE = "T0ORGONE";
const TWO = "T0ORGTWO";
const ENTERPRISE = "E0STARSHIP";
/** The OAuth manifest as shipped, sending installs back to the tests' redirect URL. */
const OAUTH_MANIFEST = (() => {
  const path = new URL("../../manifests/manifest.oauth.json", import.meta.url);
  const manifest = JSON.parse(readFileSync(path, "utf8")) as Record<string, object>;
  return { ...manifest, oauth_config: { ...manifest.oauth_config, redirect_urls: [REDIRECT] } };
})();

let fake: FakeSlack | undefined;
let app: Awaited<ReturnType<typeof recordingApp>> | undefined;
afterEach(async () => {
  await fake?.close();
  await app?.close();
  fake = undefined;
  app = undefined;
});

async function orgWithInstall(manifest: Record<string, unknown>) {
  app = await recordingApp(SECRET);
  const created = await createFakeSlack({
    manifest,
    teams: [
      { id: ONE, name: "Org One", enterprise: true },
      { id: TWO, name: "Org Two", enterprise: true },
    ],
    enterprise: { id: ENTERPRISE, name: "Starship" },
    deliverEventsTo: { url: app.url, signingSecret: SECRET },
  });
  fake = created;
  created.team(ONE).addChannel({ id: "C0ORGONE", name: "one" });
  created.team(TWO).addChannel({ id: "C0ORGTWO", name: "two" });
  const back = new URL(created.authorizeInstall({ url: authorizeUrl(created), enterprise: true }));
  const answer = await oauthAccess(created.apiUrl, {
    client_id: created.oauth.clientId,
    client_secret: created.oauth.clientSecret,
    code: back.searchParams.get("code") ?? "",
    redirect_uri: REDIRECT,
  });
  return { fake: created, app, token: String(answer.access_token) };
}

describe("team_access_revoked", () => {
  it("is sent about the org, naming the workspace, in the published shape; the token no longer acts there", async () => {
    const { fake, app, token } = await orgWithInstall(OAUTH_MANIFEST);
    app.envelopes.length = 0;
    await fake.revokeTeamAccess(TWO);
    await fake.deliveriesSettled();
    expect(app.envelopes).toHaveLength(1);
    const sent = app.envelopes[0] as Record<string, unknown>;
    const published = readFixture("event-team_access_revoked").payload as Record<string, unknown>;
    for (const key of Object.keys(published)) expect(sent).toHaveProperty(key);
    expect(sent).toMatchObject({
      team_id: null,
      enterprise_id: ENTERPRISE,
      type: "event_callback",
    });
    const event = sent.event as Record<string, unknown>;
    expect(Object.keys(event).sort()).toEqual(
      [...Object.keys(published.event as object), "event_ts"].sort(),
    );
    expect(event).toMatchObject({ type: "team_access_revoked", team_ids: [TWO] });
    expect(sent.authorizations).toEqual([
      expect.objectContaining({
        enterprise_id: ENTERPRISE,
        team_id: null,
        is_enterprise_install: true,
      }),
    ]);
    // The org token still acts in the other workspace, and no longer in the removed one.
    expect(
      await api(fake.apiUrl, "conversations.info", token, { channel: "C0ORGONE" }),
    ).toMatchObject({
      ok: true,
    });
    expect(
      await api(fake.apiUrl, "users.info", token, { user: "U0NOBODY", team_id: TWO }),
    ).toMatchObject({
      error: "team_access_not_granted",
    });
    // The removed workspace's events reach the org install no more; the other's still do.
    app.envelopes.length = 0;
    fake.team(TWO).shareSnippet({ channel: "C0ORGTWO", content: "nobody hears" });
    fake.team(ONE).shareSnippet({ channel: "C0ORGONE", content: "org hears" });
    await fake.deliveriesSettled();
    expect(new Set(app.envelopes.map((e) => e.team_id))).toEqual(new Set([ONE]));
    await expect(fake.revokeTeamAccess(TWO)).rejects.toThrow(/no org-wide installation/);
  });

  it("is not sent to an app that does not subscribe to it, and is not sent without an org-wide install", async () => {
    const { fake, app, token } = await orgWithInstall(
      oauthManifest({ dropEvents: ["team_access_revoked"] }),
    );
    app.envelopes.length = 0;
    await fake.revokeTeamAccess(TWO);
    await fake.deliveriesSettled();
    expect(app.envelopes).toEqual([]);
    expect(
      await api(fake.apiUrl, "users.info", token, { user: "U0NOBODY", team_id: TWO }),
    ).toMatchObject({
      error: "team_access_not_granted",
    });
    await expect(fake.revokeTeamAccess("T0FAKE")).rejects.toThrow(/no org-wide installation/);
  });
});
