import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { INPUTS, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  BOB,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
} from "../../support/e2e/stack.ts";
import { permalink } from "../../support/fake-slack/message-helpers.ts";
import { viewSubmissionPayload } from "../../support/fake-slack/slack-payloads.ts";
import { newTriggerId, sendViewSubmission } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/**
 * The same `/meeting-notes` request more than once, over HTTP against the running app: Slack
 * delivering one submission twice, Submit pressed twice (two deliveries racing), and a
 * second modal for a recording whose notes are already being made. Each time one job and
 * one thread parent; the person hears where the notes are being made when they asked
 * again, and nothing more when it was the same submission.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  stack.fake.addChannel({ id: CHANNEL, name: "weekly-sync", members: [ALICE, BOB] });
});
afterAll(() => stack.stop());
beforeEach(() => stack.emulator.reset());

/** Alice's own recording, uploaded in the modal (not yet in any conversation). */
function aliceRecording(name: string) {
  return stack.fake.addFile({ name, bytes: recordingBytes(name, 2048, 12), user: ALICE });
}

/** A submission of the `/meeting-notes` modal `viewId` for `fileId`, to be posted here. */
function submission(fileId: string, viewId: string, context?: string) {
  return viewSubmissionPayload({
    callbackId: VIEWS.newNotes,
    privateMetadata: JSON.stringify({ channelId: CHANNEL, locale: "en" }),
    values: {
      [INPUTS.recording.block]: {
        [INPUTS.recording.action]: { type: "file_input", files: [{ id: fileId }] },
      },
      [INPUTS.language.block]: {
        [INPUTS.language.action]: { type: "static_select", selected_option: { value: "auto" } },
      },
      [INPUTS.destination.block]: {
        [INPUTS.destination.action]: {
          type: "conversations_select",
          selected_conversation: CHANNEL,
        },
      },
      ...(context === undefined
        ? {}
        : {
            [INPUTS.context.block]: {
              [INPUTS.context.action]: { type: "plain_text_input", value: context },
            },
          }),
    },
    user: ALICE,
    viewId,
    teamId: stack.fake.teamId,
  });
}

/**
 * Delivers a submission signed `later` seconds from now (Slack signs each delivery when it
 * sends it); it must be answered with a plain ack: the modal closes.
 */
async function submit(payload: Record<string, unknown>, later = 0) {
  const timestamp = Math.floor(Date.now() / 1000) + later;
  const answer = await sendViewSubmission(stack.url, SIGNING_SECRET, payload, { timestamp });
  expect(answer.status).toBe(200);
  expect(answer.json).toBeUndefined();
}

const jobsFor = async (fileId: string) =>
  (await stack.app.jobs.service.listByChannel(stack.fake.teamId, CHANNEL)).filter(
    (j) => j.source.fileId === fileId,
  );
/** The bot's own thread parents for a recording ("Meeting notes for *name*, asked for by …"). */
const parentsOf = (name: string) =>
  stack.fake
    .messages(CHANNEL)
    .filter((m) => m.bot_id !== undefined && m.text.startsWith(`Meeting notes for *${name}*`));
/** What Alice was told alone since `from`. */
const toldAlice = (from: number) =>
  stack.fake.ephemerals.slice(from).filter((e) => e.user === ALICE && e.channel === CHANNEL);

/** One job and one thread parent for the recording; its thread. */
async function oneJobOneParent(fileId: string, name: string): Promise<string> {
  await stack.settled();
  const jobs = await jobsFor(fileId);
  expect(jobs).toHaveLength(1);
  expect(parentsOf(name)).toHaveLength(1);
  return jobs[0]?.origin.threadTs ?? "";
}

/** The sentence that says where the notes are being made: the channel and the thread. */
function saysWhere(threadTs: string): string {
  const link = permalink({ channel: CHANNEL, ts: threadTs });
  return `Notes for this recording are already being made in <${link}|a thread> in <#${CHANNEL}>.`;
}

describe("the same /meeting-notes request more than once", () => {
  it("makes one job of a submission Slack delivers twice, and says nothing of the second", async () => {
    const file = aliceRecording("delivered-twice.m4a");
    const from = stack.fake.ephemerals.length;
    const payload = submission(file.id, "V0TWICE001");
    await submit(payload);
    await eventually(
      () => jobsFor(file.id),
      (jobs) => jobs.length === 1,
    );
    await submit(payload, 1);
    await oneJobOneParent(file.id, "delivered-twice.m4a");
    expect(toldAlice(from)).toEqual([]);
  });

  it("makes one job when Submit is pressed twice, the two deliveries racing", async () => {
    const file = aliceRecording("pressed-twice.m4a");
    const from = stack.fake.ephemerals.length;
    // The same view and values, each press its own request with its own trigger_id.
    const payload = submission(file.id, "V0PRESS001");
    const again = { ...payload, trigger_id: newTriggerId() };
    await Promise.all([submit(payload), submit(again)]);
    await oneJobOneParent(file.id, "pressed-twice.m4a");
    expect(toldAlice(from)).toEqual([]);
  });

  it("tells the person where the notes are when a second modal asks for them again", async () => {
    const file = aliceRecording("asked-again.m4a");
    await submit(submission(file.id, "V0FIRST001"));
    await eventually(
      () => jobsFor(file.id),
      (jobs) => jobs.length === 1,
    );
    const from = stack.fake.ephemerals.length;
    await submit(submission(file.id, "V0AGAIN001", "the second time"));
    const thread = await oneJobOneParent(file.id, "asked-again.m4a");
    expect(toldAlice(from).map((e) => e.text)).toEqual([saysWhere(thread)]);
  });

  it("tells the one who lost the race where the notes are when two modals come at once", async () => {
    const file = aliceRecording("two-modals.m4a");
    const from = stack.fake.ephemerals.length;
    await Promise.all([
      submit(submission(file.id, "V0RACEA001")),
      submit(submission(file.id, "V0RACEB001", "from the other modal")),
    ]);
    const thread = await oneJobOneParent(file.id, "two-modals.m4a");
    expect(toldAlice(from).map((e) => e.text)).toEqual([saysWhere(thread)]);
  });

  it("points to the upload's thread when the recording shared in the channel is asked for", async () => {
    const { ts, file } = await shareRecording(stack, "shared-here.m4a");
    await eventually(
      () => jobsFor(file.id),
      (jobs) => jobs.length === 1,
    );
    const from = stack.fake.ephemerals.length;
    await submit(submission(file.id, "V0SHARED01"));
    await stack.settled();
    const jobs = await jobsFor(file.id);
    expect(jobs.map((j) => j.origin.threadTs)).toEqual([ts]);
    expect(parentsOf("shared-here.m4a")).toEqual([]);
    expect(toldAlice(from).map((e) => e.text)).toEqual([saysWhere(ts)]);
  });
});
