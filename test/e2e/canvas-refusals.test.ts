import { beforeEach, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import { t } from "../../src/slack/messages/catalog.ts";
import {
  buttonOn,
  buttonValue,
  clickButton,
  eventually,
  noteParts,
  shareRecording,
  statusMessage,
  useStack,
} from "../../support/e2e/stack.ts";

/*
 * Issue 22: a canvas Slack refuses, for a reason no one listed, never fails a delivered
 * note. The fake's `failNext` knob makes one canvas call answer `ok: false` with an error
 * of its own; the note is in the thread, the job ends done, the status says once, in plain
 * words, that there is no canvas and why, and there is no Retry to press. (Refusals with a
 * named reason — plan, setting, scope — are in canvas.test.ts.)
 */

const stack = useStack();
beforeEach(() => {
  stack.emulator.reset();
  stack.fake.setCanvasPolicy("allowed");
  stack.fake.knobs.failNext = undefined;
});

/** Shares a recording, skips naming, waits until the job has ended (done or failed). */
async function deliveredNote(name: string) {
  const { ts } = await shareRecording(stack, name);
  const { status, jobId } = await buttonOn(stack, ts, ACTIONS.skipNaming);
  await clickButton(stack, ACTIONS.skipNaming, { jobId, statusTs: status?.ts ?? "" });
  await eventually(
    () => stack.job(jobId),
    (job) => job?.stage === "done" || job?.stage === "failed",
  );
  await stack.settled();
  return { ts, jobId, status: statusMessage(stack.thread(ts)) };
}

const REFUSED = t("en", "status.no_canvas.refused");

describe("a canvas Slack refuses for a reason no one listed", () => {
  it.each(["canvases.create", "canvases.access.set"])(
    "(%s) leaves the note delivered, the job done, and says why once",
    async (method) => {
      stack.fake.knobs.failNext = { method, error: "canvas_brand_new_refusal" };
      const name = `refused-${method}.m4a`;
      const { ts, jobId, status } = await deliveredNote(name);
      const job = await stack.job(jobId);
      expect(job?.stage).toBe("done");
      expect(job?.canvasRefused).toBe("refused");
      // The note, the DOCX and the transcript are in the thread.
      expect(noteParts(stack.thread(ts)).length).toBeGreaterThan(0);
      const files = stack.fake.uploads.filter((u) => u.thread_ts === ts && u.completed);
      expect(files).toHaveLength(3);
      // Asked once: the refusal is the answer, not a reason to try again.
      const calls = stack.fake.callsTo(method).filter((c) => c.error !== undefined);
      expect(calls.map((c) => c.error)).toEqual(["canvas_brand_new_refusal"]);
      expect(stack.fake.callsTo(method)).toHaveLength(1);
      // Said once, where the person sees it, with Regenerate and no Retry.
      const said = JSON.stringify(stack.thread(ts).map((m) => m.blocks));
      expect(said.split(REFUSED)).toHaveLength(2);
      expect(JSON.stringify(status?.blocks)).toContain(REFUSED);
      expect(buttonValue(status, ACTIONS.retry)).toBeUndefined();
      expect(buttonValue(status, ACTIONS.regenerate)).toBe(jobId);
    },
  );

  it("but only rate-limited for now is asked again, and the canvas is made", async () => {
    stack.fake.knobs.rateLimit = { method: "canvases.create", count: 1, retryAfter: 0 };
    const { jobId, status } = await deliveredNote("rate-limited.m4a");
    const job = await stack.job(jobId);
    expect(job?.stage).toBe("done");
    expect(job?.canvasRefused).toBeUndefined();
    expect(job?.canvas?.url).toEqual(expect.any(String));
    expect(stack.fake.callsTo("canvases.create").length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(status?.blocks)).toContain("The notes as a canvas");
  });
});
