import { beforeEach, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import {
  buttonOn,
  clickButton,
  eventually,
  shareRecording,
  statusMessage,
  useStack,
} from "../../support/e2e/stack.ts";

/*
 * Issue 24: a download from Slack that ends early, or never comes, says so in the thread
 * (while it waits, and once it gives up) and offers Retry, which then goes on. The real app
 * against the fake Slack over HTTP; the job runner's tries shortened by the stack (three,
 * milliseconds apart: production's eight over minutes would only make this test slow).
 */

const stack = useStack();
beforeEach(() => {
  stack.fake.knobs.truncateDownloadAt = undefined;
  stack.fake.knobs.failDownloads = undefined;
});

/** Every text the job's status message showed, as the bot drew it. */
function statusTexts(jobId: string): string[] {
  return stack.fake.calls
    .filter((c) => c.method === "chat.postMessage" || c.method === "chat.update")
    .map((c) => JSON.stringify(c.args))
    .filter((args) => args.includes(jobId));
}

describe("a download from Slack that does not complete", () => {
  it("cut off before its end every time: says so while it tries again, then fails with Retry, which goes on", async () => {
    stack.fake.knobs.truncateDownloadAt = 1_000;
    const { ts } = await shareRecording(stack, "cut-short.m4a");
    const failed = await buttonOn(stack, ts, ACTIONS.retry);
    expect(failed.status?.text).toContain(
      "The download from Slack kept being cut off before the end, so I stopped trying.",
    );
    expect(JSON.stringify(failed.status?.blocks)).toContain("Retry picks up where it stopped.");
    expect(failed.status?.text).not.toContain("did not accept a message");
    const shown = statusTexts(failed.jobId);
    expect(
      shown.some((text) => text.includes("The download from Slack was cut off before the end")),
    ).toBe(true);
    const cut = stack.fake.downloads.filter((d) => d.path.includes("cut-short.m4a"));
    expect(cut.length).toBeGreaterThan(1);

    // Slack serves the file whole again: Retry downloads it and the journey goes on.
    stack.fake.knobs.truncateDownloadAt = undefined;
    await clickButton(stack, ACTIONS.retry, failed);
    await buttonOn(stack, ts, ACTIONS.skipNaming);
    expect(statusMessage(stack.thread(ts))?.text).not.toContain("cut off");
  });

  it("Slack's file server not answering at all: says the file server did not answer, with Retry", async () => {
    stack.fake.knobs.failDownloads = { status: 503, count: 1_000 };
    const { ts } = await shareRecording(stack, "never-served.m4a");
    const failed = await buttonOn(stack, ts, ACTIONS.retry);
    expect(failed.status?.text).toContain(
      "Slack's file server did not answer for a long time, so I stopped trying to download the recording.",
    );
    expect(
      statusTexts(failed.jobId).some((text) =>
        text.includes("Slack's file server is not answering right now"),
      ),
    ).toBe(true);
    await eventually(
      () => stack.fake.downloads.filter((d) => d.path.includes("never-served.m4a")).length,
      (n) => n > 1,
    );
  });
});
