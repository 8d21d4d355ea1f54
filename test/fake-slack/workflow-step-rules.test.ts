import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { STEP_CALLBACK_ID } from "../../src/slack/ids.ts";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { LOGIN_PAGE } from "../../support/fake-slack/file-download.ts";
import { EXECUTION_TOKEN_MS } from "../../support/fake-slack/workflow-steps.ts";
import { api, authorizeUrl, oauthAccess, oauthManifest, REDIRECT } from "./installs.helpers.ts";

/**
 * What Slack refuses around the app's Workflow step, as the fake holds it: the execution's
 * token is the one that completes it, for 15 minutes; a file shared nowhere the bot is
 * cannot be read by the app; a Grid workspace with a workspace install offers no step.
 */
const GRID = "T0GRIDONE";
let fake: FakeSlack;

beforeAll(async () => {
  fake = await createFakeSlack({
    manifest: oauthManifest({}),
    teams: [{ id: GRID, name: "Grid One", enterprise: true }],
    enterprise: { id: "E0GRID", name: "Grid" },
  });
  fake.addChannel({ id: "C0STEPS", name: "steps" });
  fake.addChannel({ id: "C0NOBOT", name: "no-bot", is_member: false });
  fake.team(GRID).addChannel({ id: "C0GRID", name: "grid" });
});
afterAll(() => fake.close());
afterEach(() => {
  fake.knobs.now = undefined;
});

const inputsFor = (recording: string) => ({
  recording,
  channel: "C0STEPS",
  user: { id: "U0FAKEUSER", secret: "s" },
});

function runStep(team?: string) {
  const file = fake.addFile({ name: "call.m4a", bytes: "m4a" });
  return fake.runWorkflowStep({
    callbackId: STEP_CALLBACK_ID,
    inputs: inputsFor(file.id),
    ...(team === undefined ? {} : { team }),
  });
}

const complete = (token: string | undefined, id: string) =>
  api(fake.apiUrl, "functions.completeSuccess", token, {
    function_execution_id: id,
    outputs: { thread_link: "https://fake.slack.test/archives/C0STEPS/p1" },
  });

describe("the fake's Workflow step rules", () => {
  it("takes a completion only with the execution's own token, and only for 15 minutes after the event", async () => {
    const run = runStep();
    // The bot's own token is not the execution's.
    expect(await complete(fake.botToken, run.executionId)).toMatchObject({
      error: "access_denied",
    });
    // 15 minutes on, the execution's token has expired; the run is still running.
    const issued = Date.now();
    fake.knobs.now = () => issued + EXECUTION_TOKEN_MS + 1_000;
    expect(await complete(run.botAccessToken, run.executionId)).toMatchObject({
      error: "token_expired",
    });
    expect(run.state).toBe("running");
    // A day on it is running still: Slack documents no limit for a step the app runs.
    fake.knobs.now = () => issued + 24 * 3_600_000;
    expect(run.state).toBe("running");

    const early = runStep();
    fake.knobs.now = () => issued + EXECUTION_TOKEN_MS - 60_000;
    expect(await complete(early.botAccessToken, early.executionId)).toMatchObject({ ok: true });
    expect(early.state).toBe("completed");
    // Completed: its token is gone, and no token completes it again.
    expect(await complete(early.botAccessToken, early.executionId)).toMatchObject({
      error: "invalid_auth",
    });
    expect(await complete(fake.botToken, early.executionId)).toMatchObject({
      error: "execution_not_in_running_state",
    });
  });

  it("shows a file shared nowhere the bot is to no token of the app, until it is shared where the bot is", async () => {
    const hidden = fake.addFile({ name: "form.m4a", bytes: "m4a", hiddenFromBot: true });
    const run = fake.runWorkflowStep({
      callbackId: STEP_CALLBACK_ID,
      inputs: inputsFor(hidden.id),
    });
    for (const token of [fake.botToken, run.botAccessToken]) {
      expect(await api(fake.apiUrl, "files.info", token, { file: hidden.id })).toMatchObject({
        error: "file_not_found",
      });
    }
    const download = await fetch(hidden.url_private_download ?? "", {
      headers: { authorization: `Bearer ${fake.botToken}` },
    });
    expect(await download.text()).toBe(LOGIN_PAGE);
    // Shared where the bot is not: still nothing; where it is: readable.
    fake.shareFile(hidden, { channel: "C0NOBOT", user: "U0FAKEUSER" });
    expect(await api(fake.apiUrl, "files.info", fake.botToken, { file: hidden.id })).toMatchObject({
      error: "file_not_found",
    });
    fake.shareFile(hidden, { channel: "C0STEPS", user: "U0FAKEUSER" });
    expect(await api(fake.apiUrl, "files.info", fake.botToken, { file: hidden.id })).toMatchObject({
      ok: true,
    });
  });

  it("offers no step in an Enterprise Grid workspace whose install is not org-wide", async () => {
    const back = new URL(fake.authorizeInstall({ url: authorizeUrl(fake), team: GRID }));
    const installed = await oauthAccess(fake.apiUrl, {
      client_id: fake.oauth.clientId,
      client_secret: fake.oauth.clientSecret,
      code: back.searchParams.get("code") ?? "",
      redirect_uri: REDIRECT,
    });
    expect(installed).toMatchObject({ ok: true, is_enterprise_install: false });
    const file = fake.team(GRID).addFile({ name: "grid.m4a", bytes: "m4a" });
    expect(() =>
      fake.runWorkflowStep({
        callbackId: STEP_CALLBACK_ID,
        team: GRID,
        inputs: { ...inputsFor(file.id), channel: "C0GRID" },
      }),
    ).toThrow(/Enterprise Grid.*do not appear in Workflow Builder/);
  });
});
