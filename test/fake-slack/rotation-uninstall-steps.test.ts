import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { blockActionPayload, commandFields } from "../../support/fake-slack/slack-payloads.ts";
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
 * Token rotation, uninstalls, the envelopes of each installation's events, and Workflow
 * Builder steps (function_executed, functions.completeSuccess/Error).
 */
const SECRET = "installs-secret";
const ORG = "T0ORGONE";
let fake: FakeSlack;
let app: Awaited<ReturnType<typeof recordingApp>>;

const STEP = {
  make_meeting_notes: {
    title: "Make meeting notes",
    description: "Notes from a recording",
    input_parameters: {
      properties: {
        recording: { type: "slack#/types/file_id", title: "Recording" },
        channel: { type: "slack#/types/channel_id", title: "Post to" },
        context: { type: "string" },
      },
      required: ["recording", "channel"],
    },
    output_parameters: {
      properties: {
        permalink: { type: "string" },
        docx: { type: "slack#/types/file_id" },
      },
      required: ["permalink"],
    },
  },
};

beforeAll(async () => {
  app = await recordingApp(SECRET);
  fake = await createFakeSlack({
    manifest: oauthManifest({
      settings: { token_rotation_enabled: true, org_deploy_enabled: true },
      functions: STEP,
    }),
    teams: [{ id: ORG, name: "Org One", enterprise: true }],
    enterprise: { id: "E0STARSHIP", name: "Starship" },
    deliverEventsTo: { url: app.url, signingSecret: SECRET },
  });
  fake.addChannel({ id: "C0ALPHA", name: "alpha" });
  fake.team(ORG).addChannel({ id: "C0ORGONE", name: "one" });
});
afterAll(async () => {
  await fake.close();
  await app.close();
});

async function install(opts: { team?: string; enterprise?: boolean }) {
  const back = new URL(fake.authorizeInstall({ url: authorizeUrl(fake), ...opts }));
  return oauthAccess(fake.apiUrl, {
    client_id: fake.oauth.clientId,
    client_secret: fake.oauth.clientSecret,
    code: back.searchParams.get("code") ?? "",
    redirect_uri: REDIRECT,
  });
}
const refresh = (token: string) =>
  oauthAccess(fake.apiUrl, {
    client_id: fake.oauth.clientId,
    client_secret: fake.oauth.clientSecret,
    grant_type: "refresh_token",
    refresh_token: token,
  });

describe("token rotation", () => {
  it("issues expiring xoxe tokens and a refresh token; a refresh is single-use", async () => {
    fake.knobs.tokenExpiresIn = 60;
    const first = await install({ team: "T0FAKE" });
    fake.knobs.tokenExpiresIn = undefined;
    expect(first.access_token).toMatch(/^xoxe\.xoxb-1-/);
    expect(first.refresh_token).toMatch(/^xoxe-1-/);
    expect(first.expires_in).toBe(60);
    const installation = fake.installations.at(-1);
    expect(installation?.refreshes).toBe(0);

    const second = await refresh(first.refresh_token as string);
    expect(second).toMatchObject({ ok: true, token_type: "bot", expires_in: 43_200 });
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(installation?.refreshes).toBe(1);
    expect(await refresh(first.refresh_token as string)).toMatchObject({
      error: "invalid_refresh_token",
    });

    // Expiry: every method answers token_expired; downloads a 401.
    const file = fake.addFile({ name: "r.mp3", bytes: "rot" });
    const old = first.access_token as string;
    expect(await api(fake.apiUrl, "auth.test", old)).toMatchObject({ ok: true });
    fake.expireToken(old);
    expect(await api(fake.apiUrl, "auth.test", old)).toMatchObject({ error: "token_expired" });
    expect(
      await api(fake.apiUrl, "chat.postMessage", old, { channel: "C0ALPHA", text: "x" }),
    ).toMatchObject({ error: "token_expired" });
    const got = await fetch(file.url_private_download, {
      headers: { authorization: `Bearer ${old}` },
    });
    expect(got.status).toBe(401);
    // Expiry follows the clock too.
    const live = second.access_token as string;
    const at = Date.now();
    fake.knobs.now = () => at + 43_200_000;
    try {
      expect(await api(fake.apiUrl, "auth.test", live)).toMatchObject({ error: "token_expired" });
    } finally {
      fake.knobs.now = undefined;
    }
    expect(await api(fake.apiUrl, "auth.test", live)).toMatchObject({ ok: true });

    fake.revokeRefreshToken(second.refresh_token as string);
    expect(await refresh(second.refresh_token as string)).toMatchObject({
      error: "invalid_refresh_token",
    });
  });
});

describe("envelopes per installation, and uninstalls", () => {
  it("stamps each workspace's events with its install, org-wide ones as the published example", async () => {
    await install({ enterprise: true });
    app.envelopes.length = 0;
    fake.team(ORG).shareSnippet({ channel: "C0ORGONE", content: "hello" });
    await fake.deliveriesSettled();
    const envelope = app.envelopes.at(-1) as Record<string, unknown>;
    expect(envelope).toMatchObject({
      team_id: ORG,
      enterprise_id: "E0STARSHIP",
      is_ext_shared_channel: false,
      authorizations: [
        {
          enterprise_id: "E0STARSHIP",
          team_id: ORG,
          user_id: "W0FAKEBOT",
          is_bot: true,
          is_enterprise_install: true,
        },
      ],
    });
    const published = readFixture("event-org-wide-install").payload as Record<string, unknown>;
    for (const key of Object.keys(published)) expect(envelope).toHaveProperty(key);

    // Commands and interactions from that workspace carry the same install fields.
    const command = commandFields({
      user_id: "U0X",
      channel_id: "C0ORGONE",
      ...fake.team(ORG).commandContext,
    });
    expect(command).toMatchObject({
      team_id: ORG,
      enterprise_id: "E0STARSHIP",
      enterprise_name: "Starship",
      is_enterprise_install: "true",
    });
    const action = blockActionPayload({
      actionId: "a",
      value: "v",
      user: "U0X",
      channel: "C0ORGONE",
      messageTs: "1.1",
      ...fake.team(ORG).installContext,
    });
    expect(action).toMatchObject({
      team: { id: ORG, enterprise_id: "E0STARSHIP" },
      enterprise: { id: "E0STARSHIP", name: "Starship" },
      is_enterprise_install: true,
    });
  });

  it("uninstalls: tokens refused, tokens_revoked then app_uninstalled sent to that install only", async () => {
    const answer = await install({ team: "T0FAKE" });
    const token = answer.access_token as string;
    app.envelopes.length = 0;
    const removed = await fake.uninstall({ team: "T0FAKE" });
    await fake.deliveriesSettled();
    expect(removed.uninstalled).toBe(true);
    expect(await api(fake.apiUrl, "auth.test", token)).toMatchObject({ error: "token_revoked" });
    expect(await refresh(answer.refresh_token as string)).toMatchObject({
      error: "invalid_refresh_token",
    });
    const events = app.envelopes.map((e) => e.event as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual(["tokens_revoked", "app_uninstalled"]);
    expect(events[0]?.tokens).toEqual({ oauth: [], bot: ["U0FAKEBOT"] });
    expect(app.envelopes.every((e) => e.team_id === "T0FAKE")).toBe(true);
    for (const name of ["event-tokens_revoked", "event-app_uninstalled"]) {
      const published = readFixture(name).payload as Record<string, unknown>;
      const sent = app.envelopes.find(
        (e) => (e.event as { type: string }).type === (published.event as { type: string }).type,
      );
      for (const key of Object.keys(published)) expect(sent).toHaveProperty(key);
    }
    // The workspace's events no longer go anywhere; the org's still do.
    app.envelopes.length = 0;
    fake.shareSnippet({ channel: "C0ALPHA", content: "nobody hears" });
    fake.team(ORG).shareSnippet({ channel: "C0ORGONE", content: "org hears" });
    await fake.deliveriesSettled();
    expect(app.envelopes.map((e) => e.team_id)).toEqual([ORG, ORG]);
    await expect(fake.uninstall({ team: "T0FAKE" })).rejects.toThrow(/no such live/);
  });
});

describe("Workflow Builder steps", () => {
  it("delivers function_executed in the published shape, with a token that lives while the step runs", async () => {
    const file = fake.team(ORG).addFile({ name: "m.mp3", bytes: "meeting" });
    app.envelopes.length = 0;
    const run = fake.runWorkflowStep({
      callbackId: "make_meeting_notes",
      team: ORG,
      inputs: { recording: file.id, channel: "C0ORGONE" },
    });
    await fake.deliveriesSettled();
    const event = (app.envelopes.at(-1) as { event: Record<string, unknown> }).event;
    const published = readFixture("event-function_executed").payload as Record<string, unknown>;
    expect(Object.keys(event).sort()).toEqual(Object.keys(published).sort());
    const fn = event.function as Record<string, unknown>;
    expect(Object.keys(fn).sort()).toEqual(
      Object.keys(published.function as Record<string, unknown>).sort(),
    );
    expect(fn.input_parameters).toContainEqual({
      type: "slack#/types/file_id",
      name: "recording",
      title: "Recording",
      is_required: true,
    });
    expect(event.inputs).toEqual({ recording: file.id, channel: "C0ORGONE" });
    const token = event.bot_access_token as string;
    expect(token).toBe(run.botAccessToken);
    // The step's token reads the step's workspace.
    expect(await api(fake.apiUrl, "files.info", token, { file: file.id })).toMatchObject({
      ok: true,
    });

    const id = run.executionId;
    expect(
      await api(fake.apiUrl, "functions.completeSuccess", token, {
        function_execution_id: id,
        outputs: { docx: "F0DOCX" },
      }),
    ).toMatchObject({ error: "parameter_validation_failed" });
    expect(
      await api(fake.apiUrl, "functions.completeSuccess", token, {
        function_execution_id: id,
        outputs: { permalink: 42 },
      }),
    ).toMatchObject({ error: "parameter_validation_failed" });
    expect(
      await api(fake.apiUrl, "functions.completeSuccess", token, {
        function_execution_id: "Fx0NOPE",
        outputs: { permalink: "x" },
      }),
    ).toMatchObject({ error: "function_execution_not_found" });
    const outputs = { permalink: "https://fake.slack.test/archives/C0ORGONE/p1", docx: "F0DOCX" };
    expect(
      await api(fake.apiUrl, "functions.completeSuccess", token, {
        function_execution_id: id,
        outputs,
      }),
    ).toMatchObject({ ok: true });
    expect(await run.outcome).toEqual({ status: "success", outputs });
    expect(run.state).toBe("completed");
    // Completed: the token is gone, and a second completion is refused.
    expect(await api(fake.apiUrl, "auth.test", token)).toMatchObject({ error: "invalid_auth" });
    const org = fake.installations.findLast((i) => i.isEnterpriseInstall && !i.uninstalled);
    expect(
      await api(fake.apiUrl, "functions.completeError", org?.botToken, {
        function_execution_id: id,
        error: "again",
      }),
    ).toMatchObject({ error: "execution_not_in_running_state" });
  });

  it("fails a step with completeError, and never runs one Slack would not", async () => {
    const file = fake.team(ORG).addFile({ name: "n.mp3", bytes: "n" });
    const run = fake.runWorkflowStep({
      callbackId: "make_meeting_notes",
      team: ORG,
      inputs: { recording: file.id, channel: "C0ORGONE", context: "weekly" },
    });
    const form = new URLSearchParams({
      function_execution_id: run.executionId,
      error: "The recording could not be read.",
    });
    const res = await fetch(`${fake.apiUrl}functions.completeError`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${run.botAccessToken}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form.toString(),
    });
    expect(await res.json()).toMatchObject({ ok: true });
    expect(await run.outcome).toEqual({
      status: "error",
      error: "The recording could not be read.",
    });

    const other = fake.addFile({ name: "elsewhere.mp3", bytes: "x" });
    const step =
      (inputs: Record<string, unknown>, callbackId = "make_meeting_notes") =>
      () =>
        fake.runWorkflowStep({ callbackId, team: ORG, inputs });
    expect(step({ recording: other.id, channel: "C0ORGONE" })).toThrow(/no file of/);
    expect(step({ recording: file.id, channel: "C0ALPHA" })).toThrow(/no conversation of/);
    expect(step({ channel: "C0ORGONE" })).toThrow(/required input recording/);
    expect(step({ recording: file.id, channel: "C0ORGONE", extra: 1 })).toThrow(/no input extra/);
    expect(step({ recording: file.id, channel: "C0ORGONE" }, "unknown_step")).toThrow(
      /declares no function/,
    );
  });

  it("refuses a manifest whose functions break Slack's schema", async () => {
    await expect(
      createFakeSlack({
        manifest: oauthManifest({
          functions: { bad: { title: "T", input_parameters: { properties: {} } } },
        }),
      }),
    ).rejects.toThrow(/break Slack's schema/);
  });
});
