import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { workspaceLeft } from "../../../../src/slack/listeners/events/app-uninstalled.ts";
import { sharedChannelEventCallback } from "../../../../support/fake-slack/slack-payloads.ts";
import {
  asRequest,
  buildEventArgs,
  buildListenerDeps,
  CHANNEL,
  type ListenerKit,
  startJob,
  TEAM,
} from "../../../../support/helpers/listener-args.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

/** A delivery as Slack's events reference publishes it (test/fixtures/slack/, team TXXXXXXXX). */
function published(
  name: "app_uninstalled" | "tokens_revoked" | "app_uninstalled-slack-connect",
  part: "payload" | "sharedChannelEvent" = "payload",
): Record<string, unknown> {
  const url = new URL(`../../../fixtures/slack/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8"))[part];
}
const LEAVING = "TXXXXXXXX";

async function deliver(body: Record<string, unknown>) {
  type Left = "app_uninstalled" | "tokens_revoked";
  await asRequest(() => workspaceLeft(kit.deps)(buildEventArgs<Left>(kit, body)));
}

/** A workspace with a running job, channel settings and a template. */
async function workspaceWithData(teamId: string) {
  const job = await startJob(kit, { teamId });
  const docx = new Uint8Array([0x50, 0x4b, 3, 4, 9]);
  const templateId = await kit.services.templates.save(
    { teamId, channelId: CHANNEL },
    "t.docx",
    docx,
    {
      pinned: true,
    },
  );
  await kit.services.settings.set(teamId, CHANNEL, { autoTranscribe: false, templateId });
  return { job, templateId };
}

async function expectGone(teamId: string, data: { job: { id: string }; templateId: string }) {
  expect(await kit.jobs.get(data.job.id)).toBeUndefined();
  expect(await kit.jobs.listByChannel(teamId, CHANNEL)).toEqual([]);
  expect(await kit.services.settings.get(teamId, CHANNEL)).toEqual({
    autoTranscribe: true,
    canvas: true,
    transcript: true,
    mentions: false,
    review: false,
  });
  expect(await kit.store.get("templates", data.templateId)).toBeUndefined();
}

describe("workspaceLeft", () => {
  it("stops the jobs and deletes the data of every team id on app_uninstalled", async () => {
    // One bot token, one install: whatever team id its data was filed under is its own.
    const leaving = await workspaceWithData(LEAVING);
    const other = await workspaceWithData(TEAM);
    await deliver(published("app_uninstalled"));
    await expectGone(LEAVING, leaving);
    await expectGone(TEAM, other);
    expect(kit.runner.abort).toHaveBeenCalledWith(leaving.job.id);
    expect(kit.runner.abort).toHaveBeenCalledWith(other.job.id);
    expect(await kit.store.listMembers("teams")).toEqual([]);
    expect(kit.logged("warn")).toContain("the workspace removed the app");
  });

  it("deletes what a Slack Connect channel filed under its host's team id", async () => {
    // Slack's SDK fixture: the shared channel's events name the host (T_SOURCE, E_SOURCE);
    // the uninstall names the install (T_INSTALLED, E_INSTALLED).
    const shared = published("app_uninstalled-slack-connect", "sharedChannelEvent");
    const uninstall = published("app_uninstalled-slack-connect");
    const host = await workspaceWithData(String(shared.team_id));
    const own = await workspaceWithData(String(uninstall.team_id));
    await deliver(uninstall);
    await expectGone(String(shared.team_id), host);
    await expectGone(String(uninstall.team_id), own);
    expect(await kit.store.listMembers("teams")).toEqual([]);
  });

  it("deletes the workspace's data when its bot token is revoked", async () => {
    const leaving = await workspaceWithData(LEAVING);
    await deliver(published("tokens_revoked"));
    await expectGone(LEAVING, leaving);
  });

  it("keeps everything when only user tokens are revoked", async () => {
    const leaving = await workspaceWithData(LEAVING);
    const body = published("tokens_revoked");
    body.event = { type: "tokens_revoked", tokens: { oauth: ["UXXXXXXXX"] } };
    await deliver(body);
    expect(await kit.jobs.get(leaving.job.id)).toMatchObject({ stage: "queued" });
    expect(kit.runner.abort).not.toHaveBeenCalled();
  });

  it("builds Slack Connect deliveries (for the E2E) in the shape of Slack's SDK fixture", () => {
    const fixture = published("app_uninstalled-slack-connect", "sharedChannelEvent");
    const built = sharedChannelEventCallback(fixture.event as Record<string, unknown>, {
      hostTeamId: "T_SOURCE",
      hostEnterpriseId: "E_SOURCE",
      installTeamId: "T_INSTALLED",
      installEnterpriseId: "E_INSTALLED",
      eventId: "Ev111",
      botUserId: "W111",
      apiAppId: "A111",
    });
    expect(Object.keys(built)).toEqual(expect.arrayContaining(Object.keys(fixture)));
    // `event_context` is in "each event payload sent to your app"
    // (https://docs.slack.dev/reference/methods/apps.event.authorizations.list); the SDK's
    // fixture leaves it out.
    const { token: _t, event_time: _e, is_ext_shared_channel: shared, ...rest } = built;
    const { event_context: context, ...withoutContext } = rest;
    const { token: _ft, event_time: _fe, ...expected } = fixture;
    expect(withoutContext).toEqual(expected);
    expect(shared).toBe(true);
    expect(context).toEqual(expect.any(String));
  });

  it("deletes only the workspaces team_access_revoked names (an organisation removed them)", async () => {
    const leaving = await workspaceWithData(LEAVING);
    const staying = await workspaceWithData(TEAM);
    // https://api.slack.com/events/team_access_revoked: about the org, `team_id` null.
    const body = {
      team_id: null,
      enterprise_id: "EXXXXX",
      event: { type: "team_access_revoked", team_ids: [LEAVING] },
    };
    await workspaceLeft(kit.deps)(buildEventArgs<"team_access_revoked">(kit, body));
    await expectGone(LEAVING, leaving);
    expect(await kit.jobs.get(staying.job.id)).toMatchObject({ stage: "queued" });
    expect(await kit.store.listMembers("teams")).toEqual([TEAM]);
  });

  it("does nothing for a delivery that names no workspace", async () => {
    const leaving = await workspaceWithData(LEAVING);
    const { team_id: _team, ...body } = published("app_uninstalled");
    await deliver(body);
    expect(await kit.jobs.get(leaving.job.id)).toMatchObject({ stage: "queued" });
  });

  it("still deletes everything when the envelope's other ids are malformed", async () => {
    const leaving = await workspaceWithData(LEAVING);
    await deliver({ ...published("app_uninstalled"), enterprise_id: 42, authorizations: "x" });
    await expectGone(LEAVING, leaving);
  });
});
