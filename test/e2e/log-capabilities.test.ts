import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIONS, STEP_CALLBACK_ID, VIEWS } from "../../src/slack/ids.ts";
import { expectNoCapabilityInLog } from "../../support/e2e/log-secrets.ts";
import {
  ALPHA,
  people,
  populate,
  recording,
  runStep,
  runToNote,
  skipToNote,
  stepJob,
  upload,
  workspaces,
} from "../../support/e2e/oauth-kit.ts";
import {
  OAUTH_SIGNING_SECRET,
  type OAuthStack,
  startOAuthStack,
} from "../../support/e2e/oauth-stack.ts";
import {
  ALICE,
  buttonOn,
  CHANNEL,
  clickButton,
  eventually,
  filledModal,
  type Stack,
  startStack,
} from "../../support/e2e/stack.ts";
import type { FakeStepExecution } from "../../support/fake-slack/workflow-steps.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { oauthManifest } from "../fake-slack/installs.helpers.ts";

/*
 * Issue 33: no capability in a log, at any level. The app runs at LOG_LEVEL=debug (the most
 * talkative level; Slack's SDKs log raw Socket Mode envelopes and Web API bodies there) in
 * each of its four ways — one bot token or installs by OAuth, over HTTP or Socket Mode —
 * through an install (its OAuth code and state), an upload and a click on its button (a
 * `trigger_id` and a `response_url`), a Workflow step (its `xwfp-` token) and
 * `/meeting-notes` opening its modal (the `trigger_id` goes to `views.open`). Then every
 * capability the fake Slack handed out, and every configured secret, is looked for in the
 * log.
 */

const MODES = [
  { transport: "http", socketMode: false },
  { transport: "Socket Mode", socketMode: true },
] as const;

describe.each(MODES)("installs by OAuth over $transport, at debug", ({ socketMode }) => {
  let stack: OAuthStack;
  beforeAll(async () => {
    stack = await startOAuthStack({
      manifest: oauthManifest({ mode: socketMode ? "socket" : "http" }),
      ...workspaces(ALPHA),
      quick: true,
      socketMode,
    });
    populate(stack, [ALPHA]);
    if (!socketMode) {
      const replica = stack.replicas[0];
      stack.fake.deliverEvents({
        url: `${replica?.origin}/slack/events`,
        signingSecret: OAUTH_SIGNING_SECRET,
      });
    }
  }, 30_000);
  afterAll(() => stack?.stop());

  it("installs, runs an upload to its note through a click, a Workflow step and /meeting-notes", async () => {
    expect((await stack.install({ team: ALPHA })).status).toBe(200);
    await runToNote(stack, await upload(stack, ALPHA, "debug-upload.m4a"));
    const run = runStep(stack, ALPHA, { recording: recording(stack, ALPHA, "debug-step.m4a").id });
    await skipToNote(stack, await stepJob(stack, run, `T${ALPHA}`));
    expect((await run.outcome).status).toBe("success");
    const views = stack.fake.views.length;
    const p = people(ALPHA);
    const command = { ...stack.fake.team(ALPHA).commandContext, user_id: p.starter };
    expect((await stack.deliver.command({ ...command, channel_id: p.channel })).acked).toBe(true);
    await eventually(
      () => stack.fake.views.slice(views).find((v) => v.view.callback_id === VIEWS.newNotes),
      (v) => v !== undefined,
      { what: "the /meeting-notes modal" },
    );
    for (const replica of stack.replicas) await replica.app.idle();
  }, 60_000);

  it("writes none of the capabilities Slack handed it, nor its secrets, to the log", () => {
    expectNoCapabilityInLog(stack.replicas.flatMap((r) => r.logs).join(""), {
      fake: stack.fake,
      secrets: stack.secrets(),
      handedOut: [
        "token",
        "step_token",
        "oauth_code",
        "oauth_state",
        "trigger_id",
        "response_url",
        ...(socketMode ? (["app_token", "socket_url"] as const) : []),
      ],
    });
  });
});

describe.each(MODES)("one bot token over $transport, at debug", ({ socketMode }) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({}, { socketMode, deliverEvents: !socketMode });
  }, 30_000);
  afterAll(() => stack?.stop());

  /** The job a step run started, once its status message offers Skip. */
  async function stepButton(run: FakeStepExecution) {
    const job = await eventually(
      async () =>
        (await stack.app.jobs.service.listByChannel(stack.fake.teamId, CHANNEL)).find(
          (j) => j.origin.executionId === run.executionId,
        ),
      (j) => j !== undefined,
      { what: "the step's job" },
    );
    return buttonOn(stack, job?.origin.threadTs ?? "", ACTIONS.skipNaming);
  }

  it("runs a Workflow step to its note through a click, and /meeting-notes", async () => {
    const file = stack.fake.addFile({
      name: "debug-step.m4a",
      bytes: recordingBytes("debug-step.m4a"),
      user: ALICE,
    });
    const run = stack.fake.runWorkflowStep({
      callbackId: STEP_CALLBACK_ID,
      inputs: { recording: file.id, channel: CHANNEL, user: { id: ALICE, secret: "s" } },
      user: ALICE,
    });
    await clickButton(stack, ACTIONS.skipNaming, await stepButton(run));
    expect((await run.outcome).status).toBe("success");
    expect((await stack.deliver.command({ user_id: ALICE, channel_id: CHANNEL })).acked).toBe(true);
    await filledModal(stack, VIEWS.newNotes);
    await stack.settled();
  }, 60_000);

  it("writes none of the capabilities Slack handed it, nor its secrets, to the log", () => {
    expectNoCapabilityInLog(stack.logs.join(""), {
      fake: stack.fake,
      secrets: stack.secrets(),
      handedOut: [
        "token",
        "step_token",
        "trigger_id",
        "response_url",
        ...(socketMode ? (["app_token", "socket_url"] as const) : []),
      ],
    });
  });
});
