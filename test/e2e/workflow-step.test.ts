import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../src/jobs/index.ts";
import { ACTIONS, STEP_CALLBACK_ID } from "../../src/slack/ids.ts";
import {
  ALICE,
  BOB,
  buttonOn,
  CHANNEL,
  clickButton,
  eventually,
  noteParts,
  type Stack,
  startStack,
} from "../../support/e2e/stack.ts";
import {
  EXECUTION_TOKEN_MS,
  type FakeStepExecution,
} from "../../support/fake-slack/workflow-steps.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * The Workflow Builder step "Make meeting notes", over real HTTP: the fake Slack runs the
 * step the repository's manifest declares (`function_executed`, its inputs of the declared
 * types), the app answers in single-token mode, and the step ends when the app calls
 * `functions.completeSuccess` or `completeError` (the fake's `outcome`) — on the step's own
 * token, which the fake takes for 15 minutes after the event and no longer.
 */
let stack: Stack;
beforeAll(async () => {
  // Events the fake sends (function_executed among them) reach the app over HTTP.
  stack = await startStack({ FFMPEG_PATH: "/nonexistent/ffmpeg" }, { deliverEvents: true });
});
afterAll(() => stack.stop());
beforeEach(() => {
  stack.emulator.reset();
  stack.fake.knobs.now = undefined;
});

/** Workflow Builder fills a `user_context` input with the person who ran the workflow. */
const asked = (user: string) => ({ id: user, secret: `secret-of-${user}` });

function runStep(inputs: Record<string, unknown>): FakeStepExecution {
  return stack.fake.runWorkflowStep({ callbackId: STEP_CALLBACK_ID, inputs, user: ALICE });
}

/** A recording Alice uploaded (a form's file question), shared nowhere yet. */
function recording(name: string, user = ALICE) {
  return stack.fake.addFile({ name, bytes: recordingBytes(name), user });
}

/** The job the step started, once it is recorded. */
async function jobOf(run: FakeStepExecution): Promise<Job> {
  const found = await eventually(
    async () =>
      (await stack.app.jobs.service.listByChannel(stack.fake.teamId, CHANNEL)).find(
        (j) => j.origin.executionId === run.executionId,
      ),
    (job) => job !== undefined,
    { what: "the step's job" },
  );
  if (found === undefined) throw new Error("no job");
  return found;
}

const completions = (run: FakeStepExecution) =>
  stack.fake.calls.filter(
    (c) =>
      c.method.startsWith("functions.complete") && c.args.function_execution_id === run.executionId,
  );

/** Skips naming in the job's thread, as Alice. */
async function skipNaming(job: Job) {
  const at = await buttonOn(stack, job.origin.threadTs, ACTIONS.skipNaming);
  await clickButton(stack, ACTIONS.skipNaming, at);
}

describe("the Workflow Builder step", () => {
  it("completes at once with the thread's link on the step's own token; the job outlives that token and ends in the thread", async () => {
    const file = recording("planning.m4a");
    const run = runStep({
      recording: file.id,
      channel: CHANNEL,
      user: asked(ALICE),
      participants: [BOB],
      context: "Quarterly planning",
    });
    const outcome = await run.outcome;
    const job = await jobOf(run);
    expect(job.origin).toMatchObject({ kind: "workflow", userId: ALICE, channelId: CHANNEL });
    // The bot's own message opens the thread, naming who asked; the step's output links it.
    const parent = stack.thread(job.origin.threadTs)[0];
    expect(parent?.text).toContain("planning.m4a");
    expect(parent?.text).toContain(`<@${ALICE}>`);
    expect(outcome).toEqual({
      status: "success",
      outputs: {
        thread_link: `https://fake.slack.test/archives/${CHANNEL}/p${job.origin.threadTs.replace(".", "")}`,
      },
    });
    // With the token Slack's SDKs complete with, which the fake took: it was alive.
    expect(completions(run).map((c) => c.headers.authorization)).toEqual([
      `Bearer ${run.botAccessToken}`,
    ]);

    // The names come 16 minutes later: the step's token has expired, the job goes on.
    const issued = Date.now();
    stack.fake.knobs.now = () => issued + EXECUTION_TOKEN_MS + 60_000;
    const asStep = await fetch(`${stack.fake.apiUrl}auth.test`, {
      method: "POST",
      headers: { authorization: `Bearer ${run.botAccessToken}` },
    });
    // Revoked at completion already; past its 15 minutes it would be expired anyway.
    expect(await asStep.json()).toMatchObject({ ok: false, error: "invalid_auth" });
    await skipNaming(job);
    const done = await eventually(
      () => stack.job(job.id),
      (j) => j?.stage === "done",
      { what: "the step's job done" },
    );
    if (done?.stage !== "done") throw new Error(`job ${done?.stage}`);
    expect(noteParts(stack.thread(job.origin.threadTs))[0]).toBeDefined();
    // The participants and context went where the /meeting-notes modal puts them.
    const submitted = stack.emulator.stats.audioSubmissions[0];
    expect(submitted?.contextText).toContain("Quarterly planning");
    expect(JSON.stringify(submitted)).toContain("Bob Tran");
    // Nothing more was sent to the step, on any token.
    await stack.settled();
    expect(completions(run)).toHaveLength(1);
  });

  it("fails the step at once with one sentence for a file that is not a recording, one the person cannot see, one the bot cannot see, or a channel the bot is not in", async () => {
    const notes = stack.fake.addFile({ name: "minutes.txt", bytes: "plain text", user: ALICE });
    const theirs = recording("bobs-call.m4a", BOB);
    // A form's upload, shared nowhere the bot is: no token of the app can read it.
    const unseen = stack.fake.addFile({
      name: "form-upload.m4a",
      bytes: recordingBytes("form-upload.m4a"),
      user: ALICE,
      hiddenFromBot: true,
    });
    stack.fake.addChannel({ id: "C0NOBOT01", name: "no-bot", is_member: false });
    const cases = [
      [
        { recording: notes.id, channel: CHANNEL },
        /^minutes\.txt is not a recording I can use: the step takes mp3, /,
      ],
      [{ recording: theirs.id, channel: CHANNEL }, /one the person who used this workflow/],
      [
        { recording: unseen.id, channel: CHANNEL },
        /^I cannot open that recording: .*share it in a channel I am in/,
      ],
      [{ recording: recording("ok.m4a").id, channel: "C0NOBOT01" }, /invite me there/],
    ] as const;
    for (const [inputs, sentence] of cases) {
      const run = runStep({ ...inputs, user: asked(ALICE) });
      const outcome = await run.outcome;
      expect(outcome.status).toBe("error");
      if (outcome.status !== "error") continue;
      expect(outcome.error).toMatch(sentence);
      // One plain sentence: no mrkdwn, no second line.
      expect(outcome.error).not.toMatch(/[*\n]/);
      expect(outcome.error.match(/[.!?](\s|$)/g)).toHaveLength(1);
      expect(completions(run).map((c) => c.headers.authorization)).toEqual([
        `Bearer ${run.botAccessToken}`,
      ]);
    }
    await stack.settled();
    const jobs = await stack.app.jobs.service.listByChannel(stack.fake.teamId, CHANNEL);
    expect(jobs.filter((j) => j.source.fileId === unseen.id)).toEqual([]);
    expect(await stack.app.jobs.service.listByChannel(stack.fake.teamId, "C0NOBOT01")).toEqual([]);
  });

  it("says a later failure of the job in its thread, the step long completed", async () => {
    stack.emulator.knobs.failNextTasks = [
      { kind: "audio", message: "The audio track is corrupt." },
    ];
    const run = runStep({
      recording: recording("broken.m4a").id,
      channel: CHANNEL,
      user: asked(ALICE),
    });
    expect((await run.outcome).status).toBe("success");
    const job = await jobOf(run);
    const status = await buttonOn(stack, job.origin.threadTs, ACTIONS.retry);
    expect(JSON.stringify(status.status?.blocks)).toContain("The audio track is corrupt.");
    await stack.settled();
    expect(completions(run)).toHaveLength(1);
  });

  it("sends no completion again across restarts of the app, mid-job and after", async () => {
    const run = runStep({
      recording: recording("restart.m4a").id,
      channel: CHANNEL,
      user: asked(ALICE),
    });
    expect((await run.outcome).status).toBe("success");
    const job = await jobOf(run);
    // Waiting for names when the process goes.
    await buttonOn(stack, job.origin.threadTs, ACTIONS.skipNaming);
    await stack.restart();
    await skipNaming(job);
    await eventually(
      () => stack.job(job.id),
      (j) => j?.stage === "done",
      { what: "the step's job done" },
    );
    await stack.restart();
    await stack.settled();
    expect(completions(run).map((c) => c.method)).toEqual(["functions.completeSuccess"]);
  });
});
