import { describe, expect, it, onTestFinished } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import {
  buttonOn,
  clickButton,
  eventually,
  noteParts,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { freePort } from "../../support/helpers/free-port.ts";

/*
 * Issue 34: a wrong NOTE_TAKER_BASE_URL is named where the operator looks. The likeliest
 * typo is the provider's host without its API path: the service answers 404 ("No such
 * endpoint") to the submission. An address nothing listens at is the other mistake.
 */

function linesNaming(stack: Stack, variable: string): string[] {
  return stack.logs.filter((line) => line.includes(variable));
}

async function readyz(stack: Stack): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.origin}/readyz`);
  return (await res.json()) as Record<string, unknown>;
}

describe("a wrong NOTE_TAKER_BASE_URL", () => {
  it("without its path: one log line naming it, a thread sentence with Retry; corrected and restarted, Retry delivers", async () => {
    const stack = await startStack();
    onTestFinished(() => stack.stop());
    // The provider's host alone: the emulator answers 404 ("No such endpoint") there.
    const right = stack.emulator.baseUrl;
    expect(new URL(right).pathname).not.toBe("/");
    await stack.restart({ NOTE_TAKER_BASE_URL: `${new URL(right).origin}/` });

    const first = await shareRecording(stack, "host-only.m4a");
    const second = await shareRecording(stack, "host-only-again.m4a");
    const failed = await buttonOn(stack, first.ts, ACTIONS.retry);
    expect(failed.status?.text).toContain(
      "The bot's Note Service address is wrong, so I could not send this: an admin must correct it (it must end with the provider's API path), then press Retry.",
    );
    await buttonOn(stack, second.ts, ACTIONS.retry);
    const told = linesNaming(stack, "NOTE_TAKER_BASE_URL");
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('"level":50');
    expect(told[0]).toContain("answered 404 (no such endpoint) to a submission");

    await stack.restart({ NOTE_TAKER_BASE_URL: right });
    await clickButton(stack, ACTIONS.retry, failed);
    const naming = await buttonOn(stack, first.ts, ACTIONS.skipNaming);
    await clickButton(stack, ACTIONS.skipNaming, naming);
    await eventually(
      () => noteParts(stack.thread(first.ts)),
      (parts) => parts.length > 0,
      { what: "the note, after Retry" },
    );
    expect(statusMessage(stack.thread(first.ts))?.text).not.toContain("address is wrong");
  });

  it("nothing listening there: after the wait, one log line naming it, readiness says so, the thread says it keeps trying; corrected, the job goes on", async () => {
    const port = await freePort();
    const stack = await startStack(
      { NOTE_TAKER_BASE_URL: `http://127.0.0.1:${port}/api/v1/third-party/note-taker` },
      {
        // A minute in production; the stack's jobs keep trying far longer than that here.
        noteServiceUnreachableAfterMs: 300,
        failurePolicy: { maxAttempts: 10_000, baseDelayMs: 20, maxDelayMs: 50 },
      },
    );
    onTestFinished(() => stack.stop());
    expect((await readyz(stack)).noteService).toBeUndefined();
    const { ts } = await shareRecording(stack, "nobody-home.m4a");
    await eventually(
      () => JSON.stringify(statusMessage(stack.thread(ts))?.blocks ?? []),
      (text) =>
        text.includes("The Note Service is not answering right now; I will keep trying on my own."),
      { what: "the status saying it keeps trying" },
    );
    const told = await eventually(
      () => linesNaming(stack, "NOTE_TAKER_BASE_URL"),
      (lines) => lines.length > 0,
      { what: "the log line naming NOTE_TAKER_BASE_URL" },
    );
    expect(told[0]).toContain("has not answered for a minute");
    await eventually(
      () => readyz(stack),
      (body) => body.noteService === false,
      { what: "readiness naming the Note Service" },
    );
    expect(linesNaming(stack, "NOTE_TAKER_BASE_URL")).toHaveLength(1);

    await stack.restart({ NOTE_TAKER_BASE_URL: stack.emulator.baseUrl });
    await buttonOn(stack, ts, ACTIONS.skipNaming);
    expect((await readyz(stack)).noteService).toBeUndefined();
  });
});
