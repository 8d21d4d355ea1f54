import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { workspaceLeft } from "../../../../src/slack/listeners/events/app-uninstalled.ts";
import {
  buildEventArgs,
  buildListenerDeps,
  CHANNEL,
  type ListenerKit,
  startJob,
  TEAM,
} from "../../../helpers/listener-args.ts";

let kit: ListenerKit;
beforeEach(async () => {
  kit = await buildListenerDeps();
});
afterEach(() => kit.close());

/** A delivery as Slack's events reference publishes it (test/fixtures/slack/, team TXXXXXXXX). */
function published(name: "app_uninstalled" | "tokens_revoked"): Record<string, unknown> {
  const url = new URL(`../../../fixtures/slack/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")).payload;
}
const LEAVING = "TXXXXXXXX";

async function deliver(body: Record<string, unknown>) {
  type Left = "app_uninstalled" | "tokens_revoked";
  await workspaceLeft(kit.deps)(buildEventArgs<Left>(kit, body));
}

/** A workspace with a running job, channel settings and a template. */
async function workspaceWithData(teamId: string) {
  const job = await startJob(kit, { teamId });
  const docx = new Uint8Array([0x50, 0x4b, 3, 4, 9]);
  const templateId = await kit.jobs.saveTemplate({ teamId, channelId: CHANNEL }, "t.docx", docx, {
    pinned: true,
  });
  await kit.jobs.setChannelSettings(teamId, CHANNEL, { autoTranscribe: false, templateId });
  return { job, templateId };
}

async function expectGone(teamId: string, data: { job: { id: string }; templateId: string }) {
  expect(await kit.jobs.get(data.job.id)).toBeUndefined();
  expect(await kit.jobs.listByChannel(teamId, CHANNEL)).toEqual([]);
  expect(await kit.jobs.getChannelSettings(teamId, CHANNEL)).toEqual({
    autoTranscribe: true,
    canvas: true,
    transcript: true,
    mentions: false,
  });
  expect(await kit.store.get("templates", data.templateId)).toBeUndefined();
}

describe("workspaceLeft", () => {
  it("stops the workspace's jobs and deletes its data on app_uninstalled, and no other's", async () => {
    const leaving = await workspaceWithData(LEAVING);
    const staying = await workspaceWithData(TEAM);
    await deliver(published("app_uninstalled"));
    await expectGone(LEAVING, leaving);
    expect(kit.runner.abort).toHaveBeenCalledWith(leaving.job.id);
    expect(await kit.jobs.get(staying.job.id)).toMatchObject({ stage: "queued" });
    expect(await kit.jobs.getChannelSettings(TEAM, CHANNEL)).toMatchObject({
      autoTranscribe: false,
    });
    expect(kit.logged("warn")).toContain("the workspace removed the app");
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

  it("does nothing for a delivery that names no workspace", async () => {
    const leaving = await workspaceWithData(LEAVING);
    const { team_id: _team, ...body } = published("app_uninstalled");
    await deliver(body);
    expect(await kit.jobs.get(leaving.job.id)).toMatchObject({ stage: "queued" });
  });
});
