import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import {
  ALICE,
  buttonValue,
  eventually,
  markdownOf,
  noteParts,
  type Stack,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import type { FakeMessage } from "../../support/fake-slack/fake-slack-types.ts";
import {
  blockActionPayload,
  fileShareMessageEvent,
} from "../../support/fake-slack/slack-payloads.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/*
 * Issue 22: every Slack surface works — here, the bot's direct messages. The manifests
 * leave the App Home's Messages tab writable (`messages_tab_read_only_enabled: false`), so a
 * person can send the bot a recording there (`message.im`, `im:history`): the bot answers in
 * that DM's thread like in a channel, and the note's canvas is shared with the person by
 * user id, as canvases.access.set takes no DM id
 * (https://docs.slack.dev/reference/methods/canvases.access.set, "Sharing canvases via DM or
 * MPDM").
 */

/** Alice's direct message with the bot (`D…`, `channel_type: "im"` in its events). */
const DM = "D0ALICEDM1";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  stack.fake.addChannel({
    id: DM,
    name: ALICE.toLowerCase(),
    is_im: true,
    is_private: true,
    members: [ALICE],
  });
});
afterAll(() => stack.stop());
beforeEach(() => {
  stack.emulator.reset();
  stack.fake.setCanvasPolicy("allowed");
});

const dmThread = (ts: string): FakeMessage[] => stack.fake.thread(DM, ts);

/** An array argument as the SDK sent it: JSON text in a form body, or an array in JSON. */
const listArg = (value: unknown): unknown =>
  typeof value === "string" ? JSON.parse(value) : value;

/**
 * Alice sends the bot a recording in their DM (Slack's `message.im` event of subtype
 * `file_share`), skips naming from the status message there, and the note is delivered.
 */
async function recordingInDm(name: string) {
  const file = stack.fake.addFile({ name, bytes: recordingBytes(name), user: ALICE });
  const message = stack.fake.shareFile(file, { channel: DM, user: ALICE, text: "" });
  const event = fileShareMessageEvent(file, { channel: DM, user: ALICE, ts: message.ts });
  expect(event.channel_type).toBe("im");
  expect((await stack.deliver.event(event)).acked).toBe(true);
  const status = await eventually(
    () => statusMessage(dmThread(message.ts)),
    (m) => buttonValue(m, ACTIONS.skipNaming) !== undefined,
  );
  const jobId = buttonValue(status, ACTIONS.skipNaming) ?? "";
  const click = blockActionPayload({
    actionId: ACTIONS.skipNaming,
    value: jobId,
    user: ALICE,
    channel: DM,
    messageTs: status?.ts ?? "",
    threadTs: message.ts,
  });
  expect(await stack.deliver.interaction(click)).toMatchObject({ acked: true });
  await eventually(
    () => statusMessage(dmThread(message.ts)),
    (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
  );
  await stack.settled();
  return { ts: message.ts, jobId, status: statusMessage(dmThread(message.ts)) };
}

describe("a recording sent to the bot in a direct message", () => {
  it("is answered in that DM's thread: status, note, DOCX and transcript", async () => {
    await stack.app.jobs.settings.set(stack.fake.teamId, DM, {
      autoTranscribe: true,
      canvas: false,
    });
    const { ts, jobId } = await recordingInDm("dm-standup.m4a");
    const job = await stack.job(jobId);
    expect(job).toMatchObject({ stage: "done", origin: { channelId: DM, userId: ALICE } });
    const parts = noteParts(dmThread(ts));
    expect(parts.length).toBeGreaterThan(0);
    expect(markdownOf(parts)).toContain("# Meeting notes");
    const files = stack.fake.uploads.filter((u) => u.thread_ts === ts && u.completed);
    expect(files.map((f) => f.filename).sort()).toEqual([
      "dm-standup - notes.docx",
      "dm-standup - transcript.txt",
      "dm-standup - transcript.vtt",
    ]);
    // Everything went to the DM: nothing about this job anywhere else.
    const elsewhere = stack.fake
      .callsTo("chat.postMessage")
      .filter((call) => call.args.channel !== DM && JSON.stringify(call.args).includes(jobId));
    expect(elsewhere).toEqual([]);
    expect(stack.fake.callsTo("canvases.create")).toEqual([]);
  });

  it("with canvases on, shares the canvas with the person, never with the DM's id", async () => {
    await stack.app.jobs.settings.set(stack.fake.teamId, DM, {
      autoTranscribe: true,
      canvas: true,
    });
    const { jobId, status } = await recordingInDm("dm-planning.m4a");
    const job = await stack.job(jobId);
    expect(job?.stage).toBe("done");
    expect(job?.canvasRefused).toBeUndefined();
    const canvasId = job?.canvas?.id ?? "";
    expect(stack.fake.canvases.get(canvasId)?.title).toMatch(/^dm-planning\.m4a · /);
    const sets = stack.fake
      .callsTo("canvases.access.set")
      .filter((call) => call.args.canvas_id === canvasId);
    expect(sets).toHaveLength(1);
    expect(sets[0]?.args.access_level).toBe("read");
    expect(listArg(sets[0]?.args.user_ids)).toEqual([ALICE]);
    expect(sets[0]?.args.channel_ids).toBeUndefined();
    expect(sets[0]?.error).toBeUndefined();
    // No call of any canvas method named the DM as a channel.
    for (const call of stack.fake.calls.filter((c) => c.method.startsWith("canvases."))) {
      expect(JSON.stringify(call.args)).not.toContain(DM);
    }
    // The status message in the DM links it, for the person.
    expect(JSON.stringify(status?.blocks)).toMatch(/\|The notes as a canvas> — shared with you/);
  });
});
