import { describe, expect, it } from "vitest";
import { ACTIONS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  BOB,
  buttonOn,
  buttonValue,
  clickButton,
  eventually,
  SIGNING_SECRET,
  shareRecording,
  statusMessage,
  useStack,
} from "../../support/e2e/stack.ts";
import { viewSubmissionPayload } from "../../support/fake-slack/slack-payloads.ts";
import { sendViewSubmission } from "../../support/fake-slack/slack-request.ts";

/** Names for both speakers the emulator hears. */
const names = {
  [speakerBlock.name("speaker_1")]: { name: { type: "plain_text_input", value: "Lan" } },
  [speakerBlock.name("speaker_2")]: { name: { type: "plain_text_input", value: "Minh" } },
};

/**
 * Fair use through the real app: one recording per person at a time, a Regenerate an
 * hour. A job over a limit waits in `queued` and says so; it is never refused or lost.
 */
const stack = useStack({
  MAX_ACTIVE_JOBS_PER_USER: "1",
  REGENERATE_COOLDOWN_SECONDS: "3600",
});

const upload = async (name: string, user = ALICE) =>
  (await shareRecording(stack, name, { user })).ts;

const status = (ts: string) => statusMessage(stack.thread(ts));
const submitted = (name: string) =>
  stack.emulator.stats.audioSubmissions.filter((s) => s.filename === name).length;

/** Clicks a job's button in the upload's thread; returns the job's id. */
async function click(actionId: string, ts: string, user = ALICE) {
  const job = await buttonOn(stack, ts, actionId);
  await clickButton(stack, actionId, job, user);
  return job.jobId;
}

describe("fair use", () => {
  it("holds a person's second recording in line, says so, and starts it when the first is done transcribing", async () => {
    stack.emulator.reset();
    stack.emulator.knobs.audioDurationMs = 60_000; // the first stays in transcription
    const first = await upload("first.m4a");
    await eventually(
      () => submitted("first.m4a"),
      (n) => n === 1,
    );
    const second = await upload("second.m4a");
    const waiting = await eventually(
      () => status(second),
      (m) => /waiting its turn/.test(m?.text ?? ""),
    );
    expect(waiting?.text).toMatch(/1 recording is ahead of it/);
    expect(buttonValue(waiting, ACTIONS.cancel)).toBeDefined();
    // Bob is not held back by Alice's limit.
    const bobs = await upload("bobs.m4a", BOB);
    await eventually(
      () => submitted("bobs.m4a"),
      (n) => n === 1,
    );
    expect(submitted("second.m4a")).toBe(0);
    // The first finishes transcribing and waits for names: the second goes at once.
    stack.emulator.knobs.audioDurationMs = 0;
    await eventually(
      () => status(first),
      (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    );
    await eventually(
      () => status(second),
      (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    );
    expect(submitted("second.m4a")).toBe(1);
    await eventually(
      () => status(bobs),
      (m) => buttonValue(m, ACTIONS.nameSpeakers) !== undefined,
    );
  });

  it("cancels a recording that is waiting its turn, which frees nothing it did not hold", async () => {
    stack.emulator.reset();
    stack.emulator.knobs.audioDurationMs = 60_000;
    const running = await upload("running.m4a");
    await eventually(
      () => submitted("running.m4a"),
      (n) => n === 1,
    );
    const waiting = await upload("waiting.m4a");
    await eventually(
      () => status(waiting),
      (m) => /waiting its turn/.test(m?.text ?? ""),
    );
    const jobId = await click(ACTIONS.cancel, waiting);
    await eventually(
      async () => (await stack.job(jobId))?.stage,
      (stage) => stage === "canceled",
    );
    expect(submitted("waiting.m4a")).toBe(0);
    const runningId = await click(ACTIONS.cancel, running);
    await eventually(
      async () => (await stack.job(runningId))?.stage,
      (stage) => stage === "canceled",
    );
    stack.emulator.knobs.audioDurationMs = 0;
  });

  it("lets notes be regenerated once, then asks to wait for the cooldown", async () => {
    stack.emulator.reset();
    const ts = await upload("cooldown.m4a");
    await click(ACTIONS.skipNaming, ts);
    const jobId = await click(ACTIONS.regenerate, ts);
    const answer = await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({
        callbackId: VIEWS.regenerate,
        privateMetadata: jobId,
        values: names,
        user: ALICE,
      }),
    );
    expect(answer.json).toBeUndefined();
    await eventually(
      () => stack.emulator.stats.noteSubmissions.length,
      (n) => n === 2,
    );
    await eventually(
      async () => (await stack.job(jobId))?.stage,
      (stage) => stage === "done",
    );
    const views = stack.fake.views.length;
    const from = stack.fake.ephemerals.length;
    await click(ACTIONS.regenerate, ts);
    const told = await eventually(
      () => stack.fake.ephemerals.slice(from).filter((e) => e.user === ALICE),
      (e) => e.length > 0,
    );
    expect(told[0]?.text).toMatch(/regenerated a moment ago\. Try again in (59:|1:00:)/);
    expect(stack.fake.views.length).toBe(views);
    // A submission of a modal opened earlier is refused the same way.
    const late = await sendViewSubmission(
      stack.url,
      SIGNING_SECRET,
      viewSubmissionPayload({
        callbackId: VIEWS.regenerate,
        privateMetadata: jobId,
        values: names,
        user: ALICE,
      }),
    );
    expect(late.status).toBe(200);
    await eventually(
      () => stack.fake.ephemerals.slice(from).filter((e) => e.user === ALICE),
      (e) => e.length > 1,
    );
    expect(stack.emulator.stats.noteSubmissions).toHaveLength(2);
  });
});
