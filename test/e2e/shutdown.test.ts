import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import { startProcesses } from "../../support/e2e/processes.ts";
import {
  ALICE,
  buttonValue,
  CHANNEL,
  eventually,
  noteParts,
  SIGNING_SECRET,
  statusMessage,
} from "../../support/e2e/stack.ts";
import {
  blockActionPayload,
  fileShareMessageEvent,
} from "../../support/fake-slack/slack-payloads.ts";
import { sendAction, sendEvent } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

let world: Awaited<ReturnType<typeof startProcesses>>;
beforeAll(async () => {
  world = await startProcesses();
});
afterAll(() => world.stop());

describe("graceful shutdown", () => {
  it("stops on SIGTERM mid-job with exit 0; after a restart the job ends with one note and one DOCX", async () => {
    world.emulator.knobs.pollsToComplete = 12;
    world.emulator.knobs.noteMinChars = 15_000;
    const first = await world.app();
    const file = world.fake.addFile({
      name: "sigterm.m4a",
      bytes: recordingBytes("sigterm.m4a", 2048, 5),
      user: ALICE,
    });
    const message = world.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
    const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
    await sendEvent(first.url, SIGNING_SECRET, event, { teamId: world.fake.teamId });
    await eventually(
      () => world.emulator.stats.polls.audio,
      (n) => n >= 3,
    );

    const started = Date.now();
    expect(await first.stop("SIGTERM")).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(first.lines.join("\n")).toMatch(/meeting-notes stopped/);

    const second = await world.app();
    const thread = () => world.fake.thread(CHANNEL, message.ts);
    const status = await eventually(
      () => statusMessage(thread()),
      (m) => buttonValue(m, ACTIONS.skipNaming) !== undefined,
    );
    const jobId = buttonValue(status, ACTIONS.skipNaming) ?? "";
    const click = { actionId: ACTIONS.skipNaming, value: jobId, user: ALICE, channel: CHANNEL };
    await sendAction(
      second.url,
      SIGNING_SECRET,
      blockActionPayload({ ...click, messageTs: status?.ts ?? "" }),
    );
    await eventually(
      () => statusMessage(thread()),
      (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
      20_000,
    );
    const parts = noteParts(thread()).map((m) => m.metadata?.event_payload.part);
    expect(parts.length).toBeGreaterThan(1);
    expect(new Set(parts).size).toBe(parts.length);
    expect(
      world.fake.uploads.filter(
        (u) => u.thread_ts === message.ts && u.completed && u.filename.endsWith(".docx"),
      ),
    ).toHaveLength(1);
    expect(world.emulator.stats.audioSubmissions).toHaveLength(1);
    expect(world.emulator.stats.noteSubmissions).toHaveLength(1);
    expect(await second.stop("SIGINT")).toBe(0);
    const log = [...first.lines, ...second.lines].join("\n");
    for (const secret of [world.fake.botToken, SIGNING_SECRET, world.emulator.apiKey]) {
      expect(log).not.toContain(secret);
    }
  }, 60_000);
});
