import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Job, tenantOf } from "../../src/jobs/index.ts";
import { ACTIONS } from "../../src/slack/ids.ts";
import { installKeyOf } from "../../src/slack/installs/install-key.ts";
import {
  ALPHA,
  BETA,
  ENTERPRISE,
  jobOf,
  click as kitClick,
  installToken as kitInstallToken,
  runToNote as kitRunToNote,
  upload as kitUpload,
  ORG_ONE,
  ORG_TWO,
  people,
  populate,
  type TeamJob,
  tokenOf,
  workspaces,
} from "../../support/e2e/oauth-kit.ts";
import {
  type OAuthReplica,
  type OAuthStack,
  startOAuthStack,
} from "../../support/e2e/oauth-stack.ts";
import { eventually, noteParts } from "../../support/e2e/stack.ts";
import { appHomeOpenedEvent } from "../../support/fake-slack/slack-payloads.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/**
 * Installs by OAuth, then recordings, end to end over real HTTP: the app as `createApp`
 * builds it is installed through its own `/slack/install` and `/slack/oauth_redirect` (the
 * fake's consent page and `oauth.v2.access` between), by two workspaces and by one
 * Enterprise Grid organisation org-wide; then people of each workspace upload recordings
 * that run to their notes. Each job's Slack calls carry its own install's token (and, for
 * the org's one token, its own workspace as `team_id`); no workspace can see, cancel or name
 * another's job; uninstalling one forgets only its data.
 */

let stack: OAuthStack;
let replica: OAuthReplica;

beforeAll(async () => {
  stack = await startOAuthStack({
    manifest: oauthManifest({ settings: { org_deploy_enabled: true } }),
    ...workspaces(ALPHA, BETA, ORG_ONE, ORG_TWO),
    quick: true,
  });
  replica = stack.replicas[0] as OAuthReplica;
  populate(stack, [ALPHA, BETA, ORG_ONE, ORG_TWO]);
}, 30_000);
afterAll(() => stack?.stop());

type Upload = TeamJob;

const upload = (team: string, name: string) => kitUpload(stack, team, name);
const click = (from: string, user: string, actionId: string, at: Upload) =>
  kitClick(stack, from, user, actionId, at);
const job = (at: Upload): Promise<Job | undefined> => jobOf(stack, at.jobId);
const runToNote = (at: Upload) => kitRunToNote(stack, at);
/** The bot token of the live install acting in `team`. */
const installToken = (team: string) => kitInstallToken(stack, team);

/** What a person was told (ephemerally) since `from`. */
const toldTo = (user: string, from: number) =>
  stack.fake.ephemerals
    .slice(from)
    .filter((e) => e.user === user)
    .map((e) => e.text);

/** Every key in the stack's SQLite store, read from its file. */
function storeKeys(): string[] {
  const db = new DatabaseSync(stack.env.STORE_URL.replace(/^sqlite:\/\//, ""), { readOnly: true });
  try {
    return db
      .prepare("SELECT key FROM keyv")
      .all()
      .map((row) => String(row.key));
  } finally {
    db.close();
  }
}

describe("two workspaces installed by OAuth, each uploading", () => {
  let a: Upload;
  let b: Upload;

  it("installs both through /slack/install, and runs each upload to its note with its own token", async () => {
    for (const team of [ALPHA, BETA]) {
      expect((await stack.install({ team })).status).toBe(200);
    }
    const [tokenA, tokenB] = [installToken(ALPHA), installToken(BETA)];
    expect(tokenA).not.toBe(tokenB);
    a = await upload(ALPHA, "alpha-weekly.m4a");
    b = await upload(BETA, "beta-weekly.m4a");
    expect((await job(a))?.origin).toMatchObject({ install: `T${ALPHA}`, teamId: ALPHA });
    expect((await job(b))?.origin).toMatchObject({ install: `T${BETA}`, teamId: BETA });

    // Neither workspace can move the other's waiting job, by replaying its buttons: Beta's
    // admin replays Alpha's Cancel, Alpha's starter Beta's Skip.
    const replays = replica.logs.length;
    await click(BETA, people(BETA).admin, ACTIONS.cancel, a);
    await click(ALPHA, people(ALPHA).starter, ACTIONS.skipNaming, b);
    expect((await job(a))?.stage).toBe("naming");
    expect((await job(b))?.stage).toBe("naming");
    const refused = replica.logs.slice(replays).join("");
    expect(refused.match(/a request named a job of another installation/g)).toHaveLength(2);

    await runToNote(a);
    await runToNote(b);
    // Every call about a workspace's channel, and every download of its files, carried that
    // workspace's own token. (The replays' "cannot find that job" went to the replayer with
    // her own install's token, into the other workspace's channel: Slack refused it.)
    const about = (channel: string) =>
      new Set(
        stack.fake.calls
          .filter((c) => c.args.channel === channel || c.args.channel_id === channel)
          .filter((c) => !(c.method === "chat.postEphemeral" && c.error === "channel_not_found"))
          .map(tokenOf),
      );
    expect(about(people(ALPHA).channel)).toEqual(new Set([tokenA]));
    expect(about(people(BETA).channel)).toEqual(new Set([tokenB]));
    const downloads = (name: string) =>
      new Set(
        stack.fake.downloads
          .filter((d) => d.served && d.path.endsWith(name))
          .map((d) => String(d.headers.authorization ?? "").replace(/^Bearer /, "")),
      );
    expect(downloads("alpha-weekly.m4a")).toEqual(new Set([tokenA]));
    expect(downloads("beta-weekly.m4a")).toEqual(new Set([tokenB]));
  });

  it("shows each person, in App Home, the jobs of their own workspace only", async () => {
    for (const [team, own, other] of [
      [ALPHA, "alpha-weekly.m4a", "beta-weekly.m4a"],
      [BETA, "beta-weekly.m4a", "alpha-weekly.m4a"],
    ] as const) {
      const before = stack.fake.views.length;
      const user = people(team).starter;
      expect((await stack.sendEvent(replica, team, appHomeOpenedEvent(user))).status).toBe(200);
      await replica.app.idle();
      const home = JSON.stringify(
        stack.fake.views
          .slice(before)
          .filter((v) => v.op === "publish")
          .at(-1)?.view,
      );
      expect(home).toContain(own);
      expect(home).not.toContain(other);
    }
  });

  it("forgets only Beta's data and installation when Beta uninstalls", async () => {
    // A key is a workspace's when it names its job or its tenant.
    const ofA = (key: string) =>
      key.includes(a.jobId) || key.includes(tenantOf(`T${ALPHA}`, ALPHA));
    const ofB = (key: string) => key.includes(b.jobId) || key.includes(tenantOf(`T${BETA}`, BETA));
    const before = storeKeys();
    expect(before.filter(ofA).length).toBeGreaterThan(0);
    expect(before.filter(ofB).length).toBeGreaterThan(0);
    stack.fake.deliverEvents({
      url: `${replica.origin}/slack/events`,
      signingSecret: stack.env.SLACK_SIGNING_SECRET,
    });
    try {
      await stack.fake.uninstall({ team: BETA });
      await stack.fake.deliveriesSettled();
      await replica.app.idle();
    } finally {
      stack.fake.deliverEvents(undefined);
    }
    await eventually(
      () => job(b),
      (j) => j === undefined,
      { what: "Beta's job forgotten" },
    );
    const after = storeKeys();
    // All but the stop signal every replica's step of the job reads ("workspace_removed",
    // no personal data), left to expire within the hour.
    expect(after.filter(ofB)).toEqual([`meeting-notes:meta:cancel:${b.jobId}`]);
    expect(after.filter(ofA).sort()).toEqual(before.filter(ofA).sort());
    expect((await job(a))?.stage).toBe("done");
    const { store } = replica.app;
    expect(await store.listKeys("installs", "")).toEqual([`T${ALPHA}`]);
    expect(await store.listMembers("teams")).toEqual([tenantOf(`T${ALPHA}`, ALPHA)]);
  });
});

describe("an org-wide install, uploads from two workspaces of the org", () => {
  const org = installKeyOf({ enterpriseId: ENTERPRISE, isEnterpriseInstall: true });
  let one: Upload;
  let two: Upload;

  it("runs each workspace's upload to its note in its own workspace, each call naming that workspace", async () => {
    expect((await stack.install({ enterprise: true })).status).toBe(200);
    const token = installToken(ORG_ONE);
    expect(installToken(ORG_TWO)).toBe(token);
    const before = stack.fake.calls.length;
    one = await upload(ORG_ONE, "org-one-sync.m4a");
    two = await upload(ORG_TWO, "org-two-sync.m4a");
    expect((await job(one))?.origin).toMatchObject({ install: org, teamId: ORG_ONE });
    expect((await job(two))?.origin).toMatchObject({ install: org, teamId: ORG_TWO });
    // Two tenants of one install: each job noted under its own workspace.
    const tenants = await replica.app.store.listMembers("teams");
    expect(tenants).toEqual(
      expect.arrayContaining([tenantOf(org, ORG_ONE), tenantOf(org, ORG_TWO)]),
    );
    await runToNote(one);
    await runToNote(two);
    for (const at of [one, two]) {
      const thread = stack.fake.team(at.team).thread(people(at.team).channel, at.ts);
      expect(noteParts(thread).length).toBeGreaterThan(0);
    }
    const calls = stack.fake.calls.slice(before).filter((c) => tokenOf(c) === token);
    expect(calls.length).toBeGreaterThan(0);
    // The org's one token was never refused for want of a workspace, and every call that
    // named no conversation named the workspace of the person or job it was for.
    expect(
      calls.filter((c) => c.error !== undefined).map((c) => `${c.method}: ${c.error}`),
    ).toEqual([]);
    const unscoped = calls.filter(
      (c) =>
        c.args.channel === undefined && c.args.channel_id === undefined && c.method !== "auth.test",
    );
    expect(unscoped.length).toBeGreaterThan(0);
    for (const c of unscoped) expect([ORG_ONE, ORG_TWO]).toContain(c.args.team_id);
    // The job runner's workspace-less calls (each file's download look-up, its uploads)
    // named the job's own workspace.
    const uploadsOf = (team: string) =>
      calls.filter((c) => c.method === "files.getUploadURLExternal" && c.args.team_id === team);
    expect(uploadsOf(ORG_ONE).length).toBeGreaterThan(0);
    expect(uploadsOf(ORG_TWO).length).toBeGreaterThan(0);
  });

  it("checks permissions in each workspace, though one org token serves both", async () => {
    const a = await upload(ORG_ONE, "org-one-cancel.m4a");
    const from = stack.fake.ephemerals.length;
    // An admin of Org Two, replaying Org One's Cancel through the same org install: the job
    // is another tenant's, not found.
    const logs = replica.logs.length;
    await click(ORG_TWO, people(ORG_TWO).admin, ACTIONS.cancel, a);
    expect((await job(a))?.stage).toBe("naming");
    expect(replica.logs.slice(logs).join("")).toContain(
      "a request named a job of another installation",
    );
    // A plain member of Org One's channel may not cancel the starter's job either.
    await click(ORG_ONE, people(ORG_ONE).member, ACTIONS.cancel, a);
    expect((await job(a))?.stage).toBe("naming");
    expect(toldTo(people(ORG_ONE).member, from).join(" ")).toMatch(
      /Only the person who started .* admin, can cancel/,
    );
    // Org One's own admin may.
    await click(ORG_ONE, people(ORG_ONE).admin, ACTIONS.cancel, a);
    const canceled = await eventually(
      () => job(a),
      (j) => j?.stage === "canceled",
      { what: "Org One's job canceled by its admin" },
    );
    expect(canceled?.stage === "canceled" ? canceled.canceledBy : undefined).toBe(
      people(ORG_ONE).admin,
    );
    // Org Two's admin was told nothing of Org One's job.
    expect(toldTo(people(ORG_TWO).admin, from)).toEqual([]);
  });

  it("shows each workspace of the org, in App Home, its own jobs only", async () => {
    const before = stack.fake.views.length;
    const user = people(ORG_TWO).starter;
    expect((await stack.sendEvent(replica, ORG_TWO, appHomeOpenedEvent(user))).status).toBe(200);
    await replica.app.idle();
    const published = stack.fake.views.slice(before).filter((v) => v.op === "publish");
    const home = JSON.stringify(published.at(-1)?.view);
    expect(home).toContain("org-two-sync.m4a");
    expect(home).not.toContain("org-one-sync.m4a");
    expect(home).not.toContain("org-one-cancel.m4a");
  });
});
