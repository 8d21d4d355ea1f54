import { beforeEach, describe, expect, it } from "vitest";
import { ACTIONS } from "../../src/slack/ids.ts";
import {
  buttonOn,
  buttonValue,
  CHANNEL,
  clickButton,
  eventually,
  markdownOf,
  noteParts,
  regenerateWithNames,
  shareRecording,
  statusMessage,
  useStack,
} from "../../support/e2e/stack.ts";

/*
 * Issue 16, the note as a canvas: made once, readable by the channel, linked from the
 * status message; a Regenerate edits it; a workspace that refuses canvases keeps the thread
 * delivery and is told once why there is no canvas. (A crash between canvases.create and
 * its checkpoint: test/jobs/crash/crash.test.ts, CRASH_AT=canvas.)
 */

const stack = useStack();
beforeEach(() => {
  stack.emulator.reset();
  stack.fake.setCanvasPolicy("allowed");
});

/** Shares a recording, skips naming, waits for the note; returns the thread and job. */
async function deliveredNote(name: string) {
  const { ts } = await shareRecording(stack, name);
  const { status, jobId } = await buttonOn(stack, ts, ACTIONS.skipNaming);
  await clickButton(stack, ACTIONS.skipNaming, { jobId, statusTs: status?.ts ?? "" });
  const done = await eventually(
    () => statusMessage(stack.thread(ts)),
    (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
  );
  await stack.settled();
  return { ts, jobId, done: statusMessage(stack.thread(ts)) ?? done };
}

const canvasesOf = (title: string) =>
  [...stack.fake.canvases.values()].filter((c) => c.title.startsWith(title));

describe("the note as a canvas", () => {
  it("holds the whole 30,000-character note, the channel may read it, the status links it", async () => {
    stack.emulator.knobs.noteMinChars = 30_000;
    const { ts, jobId, done } = await deliveredNote("quarterly.m4a");
    const [canvas, ...more] = canvasesOf("quarterly.m4a · ");
    expect(more).toEqual([]);
    if (canvas === undefined) throw new Error("no canvas");
    expect(canvas.title).toMatch(/^quarterly\.m4a · [A-Z][a-z]{2} \d{1,2}, \d{4}$/);
    expect(canvas.channels.get(CHANNEL)).toBe("read");
    // Every part posted in the thread is in the canvas, whole: nothing dropped.
    const parts = noteParts(stack.thread(ts));
    expect(parts.length).toBeGreaterThan(1);
    expect(canvas.markdown.length).toBeGreaterThanOrEqual(30_000);
    const job = await stack.job(jobId);
    expect(job?.stage).toBe("done");
    for (const heading of markdownOf(parts).match(/^## .+$/gm) ?? []) {
      expect(canvas.markdown).toContain(heading);
    }
    expect(canvas.markdown).not.toMatch(/^#{4,} /m);
    // The thread still has the parts, the DOCX and the transcript; the status links the canvas.
    const files = stack.fake.uploads.filter((u) => u.thread_ts === ts && u.completed);
    expect(files.map((f) => f.filename).sort()).toEqual([
      "quarterly - notes.docx",
      "quarterly - transcript.txt",
      "quarterly - transcript.vtt",
    ]);
    expect(done?.text ?? "").toBeTruthy();
    // The link is the canvas file's permalink (files.info), shown in the status message.
    expect(JSON.stringify(done?.blocks)).toMatch(
      new RegExp(`<https://[^|>]+/${canvas.id}/[^|>]+\\|The notes as a canvas>`),
    );
  });

  it("is edited, not made again, by a Regenerate with new names", async () => {
    const { ts, jobId, done } = await deliveredNote("planning.m4a");
    const before = canvasesOf("planning.m4a · ");
    expect(before).toHaveLength(1);
    await regenerateWithNames(
      stack,
      { jobId, statusTs: done?.ts ?? "" },
      { speaker_1: "Hoa Le", speaker_2: "Quang Do" },
    );
    const canvas = before[0];
    await eventually(
      () => canvas?.edits ?? 0,
      (edits) => edits === 1,
    );
    await stack.settled();
    expect(canvasesOf("planning.m4a · ")).toHaveLength(1);
    expect(canvas?.markdown).toContain("Hoa Le");
    expect(canvas?.markdown).toContain("Quang Do");
    expect(markdownOf(noteParts(stack.thread(ts)))).toContain("Hoa Le");
  });

  it.each([
    ["disabled", "No canvas: this workspace does not let apps make canvases"],
    ["free", "No canvas: this workspace's plan does not let apps make canvases"],
    ["no_scope", "No canvas: the app lacks the canvases:write permission"],
  ] as const)(
    "where the workspace refuses (%s), the thread has the note and the status says why, once",
    async (policy, sentence) => {
      stack.fake.setCanvasPolicy(policy);
      const name = `refused-${policy}.m4a`;
      const { ts, done } = await deliveredNote(name);
      expect(canvasesOf(name)).toEqual([]);
      expect(noteParts(stack.thread(ts)).length).toBeGreaterThan(0);
      const docx = stack.fake.uploads.filter(
        (u) => u.thread_ts === ts && u.filename.endsWith(".docx"),
      );
      expect(docx).toHaveLength(1);
      const said = JSON.stringify(stack.thread(ts).map((m) => m.blocks));
      expect(said.split(sentence)).toHaveLength(2);
      expect(JSON.stringify(done?.blocks)).toContain(sentence);
    },
  );
});
