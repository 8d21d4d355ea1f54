import { describe, expect, it, onTestFinished } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import { startProcesses } from "../../support/e2e/processes.ts";
import {
  ALICE,
  buttonValue,
  CHANNEL,
  eventually,
  SIGNING_SECRET,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { fileShareMessageEvent } from "../../support/fake-slack/slack-payloads.ts";
import { sendEvent } from "../../support/fake-slack/slack-request.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";

/*
 * Issue 24: a Note Service key the service refuses, found at its first use. The real
 * process (`node src/main.ts`) against the fake Slack and the emulator, which answers 401
 * to a key that is not its own.
 */
describe("the Note Service refusing NOTE_TAKER_API_KEY", () => {
  it("fails each recording with its sentence and Retry, and tells the log once, naming the variable", async () => {
    const world = await startProcesses();
    onTestFinished(() => world.stop());
    const app = await world.app({ NOTE_TAKER_API_KEY: "not-the-emulator-key" });
    const threads: string[] = [];
    for (const name of ["first-try.m4a", "second-try.m4a"]) {
      const file = world.fake.addFile({ name, bytes: recordingBytes(name), user: ALICE });
      const message = world.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
      const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
      const sent = await sendEvent(app.url, SIGNING_SECRET, event, { teamId: world.fake.teamId });
      expect(sent.status).toBe(200);
      threads.push(message.ts);
    }
    for (const ts of threads) {
      const failed = await eventually(
        () => statusMessage(world.fake.thread(CHANNEL, ts)),
        (m) => buttonValue(m, ACTIONS.retry) !== undefined,
        { what: "the failed status, with Retry", context: () => app.lines.slice(-5).join("\n") },
      );
      expect(failed?.text).toContain(
        "The Note Service did not accept this app's API key; an admin must correct it in the bot's settings.",
      );
    }
    const told = app.lines.filter((line) => line.includes("NOTE_TAKER_API_KEY"));
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('"level":50');
    expect(told[0]).toContain(
      "The Note Service refused NOTE_TAKER_API_KEY (HTTP 401 or 403), so every recording fails until it is fixed",
    );
    // The key itself is never written.
    expect(app.lines.join("\n")).not.toContain("not-the-emulator-key");
  });
});
