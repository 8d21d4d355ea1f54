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
import type { FakeStepExecution } from "../../support/fake-slack/workflow-steps.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * The Workflow Builder step "Make meeting notes", over real HTTP: the fake Slack runs the
 * step the repository's manifest declares (`function_executed`, its inputs of the declared
 * types), the app answers in single-token mode, and the step ends when the app calls
 * `functions.completeSuccess` or `completeError` (the fake's `outcome`).
 */
let stack: Stack;
beforeAll(async () => {
  // Events the fake sends (function_executed among them) reach the app over HTTP.
  stack = await startStack({ FFMPEG_PATH: "/nonexistent/ffmpeg" }, { deliverEvents: true });
});
afterAll(() => stack.stop());
beforeEach(() => {
  stack.emulator.reset();
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
  it("runs from a file input to a posted note and completes with the note's link, canvas and DOCX", async () => {
    const file = recording("planning.m4a");
    const run = runStep({
      recording: file.id,
      channel: CHANNEL,
      user: asked(ALICE),
      participants: [BOB],
      context: "Quarterly planning",
    });
    const job = await jobOf(run);
    expect(job.origin).toMatchObject({ kind: "workflow", userId: ALICE, channelId: CHANNEL });
    // The bot's own message opens the thread, naming who asked.
    const parent = stack.thread(job.origin.threadTs)[0];
    expect(parent?.text).toContain("planning.m4a");
    expect(parent?.text).toContain(`<@${ALICE}>`);
    await skipNaming(job);
    const outcome = await run.outcome;
    expect(outcome.status).toBe("success");
    if (outcome.status !== "success") return;

    const done = await stack.job(job.id);
    if (done?.stage !== "done") throw new Error(`job ${done?.stage}`);
    const first = noteParts(stack.thread(job.origin.threadTs))[0];
    expect(first).toBeDefined();
    expect(outcome.outputs.note_link).toMatch(/^https:\/\//);
    expect(outcome.outputs.note_link).toContain((first?.ts ?? "").replace(".", ""));
    expect(done.docxFileId).toMatch(/^F/);
    expect(outcome.outputs.docx).toBe(done.docxFileId);
    expect(done.canvas?.id).toMatch(/^F/);
    expect(outcome.outputs.canvas).toBe(done.canvas?.id);
    // Recorded once Slack took it.
    await eventually(
      async () => (await stack.job(job.id))?.stepCompleted,
      (completed) => completed?.outcome === "success",
    );
    // The participants and context went where the /meeting-notes modal puts them.
    const submitted = stack.emulator.stats.audioSubmissions[0];
    expect(submitted?.contextText).toContain("Quarterly planning");
    expect(JSON.stringify(submitted)).toContain("Bob Tran");
    // Completed with the bot's own token, not the step's (which dies with the step).
    expect(completions(run).map((c) => c.headers.authorization)).toEqual([
      `Bearer ${stack.fake.botToken}`,
    ]);
  });

  it("fails the step at once with one sentence for a file that is not a recording, one the person cannot see, or a channel the bot is not in", async () => {
    const notes = stack.fake.addFile({ name: "minutes.txt", bytes: "plain text", user: ALICE });
    const theirs = recording("bobs-call.m4a", BOB);
    stack.fake.addChannel({ id: "C0NOBOT01", name: "no-bot", is_member: false });
    const cases = [
      [
        { recording: notes.id, channel: CHANNEL },
        /^minutes\.txt is not a recording I can use: the step takes mp3, /,
      ],
      [{ recording: theirs.id, channel: CHANNEL }, /one the person who used this workflow/],
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
    }
    await stack.settled();
    const jobs = await stack.app.jobs.service.listByChannel(stack.fake.teamId, "C0NOBOT01");
    expect(jobs).toEqual([]);
  });

  it("fails the step with the job's own sentence when the job fails later", async () => {
    stack.emulator.knobs.failNextTasks = [
      { kind: "audio", message: "The audio track is corrupt." },
    ];
    const run = runStep({
      recording: recording("broken.m4a").id,
      channel: CHANNEL,
      user: asked(ALICE),
    });
    const outcome = await run.outcome;
    expect(outcome).toEqual({
      status: "error",
      error: "The Note Service could not process it: The audio track is corrupt.",
    });
    // The thread says the same words.
    const job = await jobOf(run);
    const status = await buttonOn(stack, job.origin.threadTs, ACTIONS.retry);
    expect(JSON.stringify(status.status?.blocks)).toContain("The audio track is corrupt.");
  });

  it("sends no completion twice across restarts of the app, mid-job and after", async () => {
    const run = runStep({
      recording: recording("restart.m4a").id,
      channel: CHANNEL,
      user: asked(ALICE),
    });
    const job = await jobOf(run);
    // Waiting for names when the process goes.
    await buttonOn(stack, job.origin.threadTs, ACTIONS.skipNaming);
    await stack.restart();
    await skipNaming(job);
    expect((await run.outcome).status).toBe("success");
    await stack.settled();
    // Started again with the step completed: the sweep at start sends nothing.
    await stack.restart();
    await stack.settled();
    expect(completions(run)).toHaveLength(1);
    expect(completions(run)[0]?.method).toBe("functions.completeSuccess");
  });
});
