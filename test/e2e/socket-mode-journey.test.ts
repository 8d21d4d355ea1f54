import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS, INPUTS, speakerBlock, VIEWS } from "../../src/slack/ids.ts";
import {
  ALICE,
  BOB,
  buttonOn,
  buttonValue,
  CHANNEL,
  clickButton,
  eventually,
  filledModal,
  markdownOf,
  noteParts,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { viewSubmissionPayload } from "../../support/fake-slack/slack-payloads.ts";
import type { FakeSocketMode } from "../../support/fake-slack/socket-mode-server.ts";

/**
 * The journeys of the HTTP end-to-end tests, over Socket Mode: the real app connects to the
 * fake Slack's Socket Mode server through `apps.connections.open` and gets every event,
 * command and click as an envelope there; the Note Service is the emulator.
 */
let stack: Stack;
let socket: FakeSocketMode;
beforeAll(async () => {
  stack = await startStack({}, { socketMode: true });
  socket = stack.socket as FakeSocketMode;
});
afterAll(() => stack.stop());
beforeEach(() => stack.emulator.reset());

async function readyz(): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${stack.origin}/readyz`);
  return { status: res.status, body: await res.json() };
}

const finished = (threadTs: string) =>
  eventually(
    () => statusMessage(stack.thread(threadTs)),
    (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
  );

describe("over Socket Mode", () => {
  it("takes an upload, asks for names in a modal, and delivers the note and DOCX", async () => {
    stack.emulator.knobs.pollsToComplete = 3;
    const { ts } = await shareRecording(stack, "socket-sync.m4a", { text: "Roadmap" });
    const job = await buttonOn(stack, ts, ACTIONS.nameSpeakers);
    const { jobId } = job;
    expect(stack.emulator.stats.audioSubmissions[0]?.contextText).toBe("Roadmap");

    await clickButton(stack, ACTIONS.nameSpeakers, job);
    const opened = await filledModal(stack, VIEWS.speakerNames, jobId);
    expect(opened?.view.callback_id).toBe(VIEWS.speakerNames);

    const values = {
      [speakerBlock.user("speaker_1")]: { user: { type: "users_select", selected_user: BOB } },
      [speakerBlock.name("speaker_2")]: { name: { type: "plain_text_input", value: "Minh Pham" } },
    };
    const submitted = await stack.deliver.interaction(
      viewSubmissionPayload({
        callbackId: VIEWS.speakerNames,
        privateMetadata: jobId,
        values,
        user: ALICE,
      }),
    );
    expect(submitted).toMatchObject({ acked: true, payload: undefined });

    expect((await finished(ts))?.text).toMatch(/ready/i);
    const parts = noteParts(stack.thread(ts));
    expect(markdownOf(parts)).toContain("Bob Tran");
    expect(markdownOf(parts)).toContain("Minh Pham");
    const docx = stack.fake.uploads.filter(
      (u) => u.thread_ts === ts && u.completed && u.filename.endsWith(".docx"),
    );
    expect(docx.map((u) => u.filename)).toEqual(["socket-sync - notes.docx"]);
  });

  it("opens the /meeting-notes modal from a slash_commands envelope and answers in the ack", async () => {
    const views = stack.fake.views.length;
    const command = { user_id: ALICE, channel_id: CHANNEL, team_id: stack.fake.teamId };
    expect(await stack.deliver.command({ ...command, text: "" })).toMatchObject({
      acked: true,
      payload: undefined,
    });
    const opened = await eventually(
      () => stack.fake.views.slice(views),
      (v) => v.length > 0,
    );
    expect(opened[0]?.view.callback_id).toBe(VIEWS.newNotes);

    // Alice is known now: help rides on the ack, as over HTTP.
    const help = await stack.deliver.command({ ...command, text: "help" });
    expect(help.payload).toMatchObject({ response_type: "ephemeral" });
    expect(JSON.stringify(help.payload)).toMatch(/settings/);

    const refused = await stack.deliver.interaction(
      viewSubmissionPayload({
        callbackId: VIEWS.newNotes,
        privateMetadata: String(opened[0]?.view.private_metadata),
        values: {
          [INPUTS.destination.block]: {
            [INPUTS.destination.action]: {
              type: "conversations_select",
              selected_conversation: CHANNEL,
            },
          },
        },
        user: ALICE,
      }),
    );
    expect(refused.payload).toMatchObject({
      response_action: "errors",
      errors: { [INPUTS.recording.block]: expect.stringMatching(/recording/i) },
    });
  });

  it("cancels from an interactive envelope, and refuses Bob's Cancel of Alice's job", async () => {
    stack.emulator.knobs.pollsToComplete = 1000;
    const { ts } = await shareRecording(stack, "socket-cancel.m4a");
    const job = await buttonOn(stack, ts, ACTIONS.cancel);
    const { jobId } = job;

    const from = stack.fake.ephemerals.length;
    await clickButton(stack, ACTIONS.cancel, job, BOB);
    const told = await eventually(
      () => stack.fake.ephemerals.slice(from).filter((e) => e.user === BOB),
      (e) => e.length > 0,
    );
    expect(told[0]?.text).toMatch(/Only the person who started .* admin, can cancel/);
    expect((await stack.job(jobId))?.stage).not.toBe("canceled");

    await clickButton(stack, ACTIONS.cancel, job);
    const canceled = await eventually(
      () => stack.job(jobId),
      (j) => j?.stage === "canceled",
    );
    expect(canceled?.stage === "canceled" ? canceled.canceledBy : undefined).toBe(ALICE);
  });

  it("makes one job of an upload event the server redelivers because its ack came late", async () => {
    socket.knobs.loseAcks = 1;
    const { ts, sent } = await shareRecording(stack, "socket-retry.ogg", {
      deliver: { ackTimeoutMs: 300 },
    });
    const deliveries = socket.deliveries.filter((d) => sent.deliveries?.includes(d));
    expect(deliveries.map((d) => [d.attempt, d.lostAcks])).toEqual([
      [0, 1],
      [1, 0],
    ]);
    await buttonOn(stack, ts, ACTIONS.nameSpeakers);
    await stack.settled();
    // This upload's own: a job canceled by the test before may still land its submission.
    const mine = stack.emulator.stats.audioSubmissions.filter(
      (s) => s.filename === "socket-retry.ogg",
    );
    expect(mine).toHaveLength(1);
    const statuses = stack.thread(ts).filter((m) => m.metadata?.event_payload.kind === "status");
    expect(statuses).toHaveLength(1);
  });

  it("reconnects through a new apps.connections.open when Slack refreshes the socket mid-job", async () => {
    stack.emulator.knobs.pollsToComplete = 4;
    const opens = stack.fake.callsTo("apps.connections.open").length;
    const [before] = socket.openConnections();
    const { ts } = await shareRecording(stack, "socket-refresh.m4a");
    await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => m !== undefined,
    );
    socket.knobs.refuseConnections = true;
    socket.disconnect("refresh_requested");
    expect(
      await eventually(
        () => readyz(),
        (r) => r.status === 503,
      ),
    ).toMatchObject({ body: { ok: false, socket: false } });
    expect(before).toMatchObject({ closedBy: "app", closeCode: 1000 });
    // The job goes on without the socket: it needs the Web API and the Note Service.
    const job = await buttonOn(stack, ts, ACTIONS.skipNaming);
    expect((await readyz()).status).toBe(503);

    socket.knobs.refuseConnections = false;
    await eventually(
      () => readyz(),
      (r) => r.status === 200,
    );
    expect(stack.fake.callsTo("apps.connections.open").length).toBeGreaterThan(opens);
    const [after] = socket.openConnections();
    expect(after?.id).not.toBe(before?.id);

    await clickButton(stack, ACTIONS.skipNaming, job);
    expect(socket.deliveries.at(-1)?.connection).toBe(after?.id);
    await finished(ts);
    await stack.settled();
    expect(stack.emulator.stats.audioSubmissions).toHaveLength(1);
    expect(stack.emulator.stats.noteSubmissions).toHaveLength(1);
    expect(
      stack.fake.uploads.filter(
        (u) => u.thread_ts === ts && u.completed && u.filename.endsWith(".docx"),
      ),
    ).toHaveLength(1);
    const statuses = stack.thread(ts).filter((m) => m.metadata?.event_payload.kind === "status");
    expect(statuses).toHaveLength(1);
  });

  // Runs last: by now the server has sent every envelope of the journeys above.
  it("acked every envelope within 3 seconds", () => {
    const types = new Set(socket.deliveries.map((d) => d.type));
    expect(types).toEqual(new Set(["events_api", "slash_commands", "interactive"]));
    const late = socket.deliveries.filter((d) => d.ackMs === undefined || d.ackMs >= 3000);
    expect(late).toEqual([]);
  });
});
