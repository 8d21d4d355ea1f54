import { open } from "node:fs/promises";
import { beforeEach, describe, expect, it } from "vitest";
import type { OpenFile } from "../../src/slack/gateway/file-sink.ts";
import { ACTIONS } from "../../src/slack/ids.ts";
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
import type { FakeMessage } from "../../support/fake-slack/fake-slack-types.ts";

/*
 * Issue 23, Slack's side failing: a call Slack carried out whose answer was lost, Slack's
 * file server answering 503, the disk filling up during a download, a file Slack will not
 * let the bot read. The real app, the fake Slack behind a fault proxy, production's Slack
 * client settings (no re-sends but the budget's idempotent ones).
 */

/** Downloads whose writes find the disk full, from now on (the seam behind the temp file). */
let fullDiskWrites = 0;
const openDownloadFile: OpenFile = async (path) => {
  const handle = await open(path, "w", 0o600);
  if (fullDiskWrites <= 0) return handle;
  fullDiskWrites -= 1;
  const full = Object.assign(new Error("ENOSPC: no space left on device, write"), {
    code: "ENOSPC",
    errno: -28,
    syscall: "write",
  });
  return { writev: () => Promise.reject(full), close: () => handle.close() };
};

const stack = useStack(
  {},
  // Eight tries, as in production: each lost answer costs one.
  { slackProxy: true, failurePolicy: { maxAttempts: 8 }, openDownloadFile },
);
beforeEach(() => {
  stack.emulator.reset();
  stack.slackProxy?.heal();
  stack.fake.knobs.failDownloads = undefined;
  fullDiskWrites = 0;
});

const proxy = () => {
  if (stack.slackProxy === undefined) throw new Error("the stack has no Slack proxy");
  return stack.slackProxy;
};

/** Shares a recording, skips naming, and waits until the job has ended; returns its thread. */
async function runJob(name: string) {
  const { ts } = await shareRecording(stack, name);
  const { status, jobId } = await buttonOn(stack, ts, ACTIONS.skipNaming);
  await clickButton(stack, ACTIONS.skipNaming, { jobId, statusTs: status?.ts ?? "" });
  await eventually(
    () => stack.job(jobId),
    (job) => job?.stage === "done" || job?.stage === "failed",
    { what: `${name}'s job, ended` },
  );
  await stack.settled();
  return { ts, jobId };
}

/** Every text the status message of `jobId` showed, as the bot drew it. */
function statusTexts(jobId: string): string[] {
  return stack.fake.calls
    .filter((c) => c.method === "chat.postMessage" || c.method === "chat.update")
    .map((c) => JSON.stringify(c.args))
    .filter((args) => args.includes(jobId));
}

const partNumbers = (messages: FakeMessage[]) =>
  noteParts(messages).map((m) => m.metadata?.event_payload.part);
const statuses = (messages: FakeMessage[]) =>
  messages.filter((m) => m.metadata?.event_payload.kind === "status");

describe("Slack carries out a call and its answer is lost", () => {
  it("still leaves one status message, each note part, DOCX, transcript and canvas once", async () => {
    // The first status post and note part 0 answered 503, the DOCX and the transcript
    // completions reset, the canvas answered 503: each after the fake Slack did it.
    const posts = proxy().add({ methods: ["chat.postMessage"], fault: "lose_503", times: 2 });
    const completions = proxy().add({
      methods: ["files.completeUploadExternal"],
      fault: "lose_reset",
      times: 2,
    });
    const canvases = proxy().add({ methods: ["canvases.create"], fault: "lose_503", times: 1 });
    stack.emulator.knobs.noteMinChars = 30_000;
    const { ts, jobId } = await runJob("lost-answers.m4a");

    expect(await stack.job(jobId)).toMatchObject({ stage: "done" });
    expect([posts.hits, completions.hits, canvases.hits]).toEqual([2, 2, 1]);
    const thread = stack.thread(ts);
    expect(statuses(thread)).toHaveLength(1);
    const parts = partNumbers(thread);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts).toEqual([...parts.keys()]);
    const files = stack.fake.uploads.filter((u) => u.thread_ts === ts && u.completed);
    expect(files.map((f) => f.filename).sort()).toEqual([
      "lost-answers - notes.docx",
      "lost-answers - transcript.txt",
      "lost-answers - transcript.vtt",
    ]);
    const made = [...stack.fake.canvases.values()].filter((c) =>
      c.title.startsWith("lost-answers.m4a · "),
    );
    expect(made).toHaveLength(1);
    // The status message links the one canvas, and no failure was ever shown.
    const done = statusMessage(thread);
    expect(JSON.stringify(done?.blocks)).toContain(made[0]?.id ?? "?");
    expect(buttonValue(done, ACTIONS.regenerate)).toBe(jobId);
    // Nothing non-idempotent was sent twice by a client: each lost call went out once.
    for (const method of ["chat.postMessage", "files.completeUploadExternal", "canvases.create"]) {
      const lost = proxy()
        .callsTo(method)
        .filter((r) => r.fault !== undefined);
      expect(lost.every((r) => r.upstreamStatus === 200)).toBe(true);
    }
  });
});

describe("Slack's file server failing", () => {
  it("answering 503 for a while: the job waits saying why, then completes", async () => {
    stack.fake.knobs.failDownloads = { status: 503, count: 2 };
    const { jobId } = await runJob("file-server.m4a");
    expect(await stack.job(jobId)).toMatchObject({ stage: "done" });
    const shown = statusTexts(jobId);
    expect(shown.some((text) => text.includes("Slack's file server is not answering"))).toBe(true);
    expect(shown.some((text) => text.includes("Could not make notes"))).toBe(false);
    const served = stack.fake.downloads.filter((d) => d.path.includes("file-server.m4a"));
    expect(served.map((d) => d.status)).toEqual([503, 503, 200]);
  });

  it("refusing the file (404): the job fails at once, saying the bot cannot read it", async () => {
    stack.fake.knobs.failDownloads = { status: 404, count: 99 };
    const { ts } = await shareRecording(stack, "refused.m4a");
    const failed = await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => buttonValue(m, ACTIONS.retry) !== undefined,
    );
    expect(failed?.text).toContain("Slack would not let me read the recording");
    expect(failed?.text).toContain("invite me to the channel");
    expect(failed?.text).not.toContain("did not accept a message");
    const tried = stack.fake.downloads.filter((d) => d.path.includes("refused.m4a"));
    expect(tried).toHaveLength(1);
  });
});

describe("the disk filling up during a download", () => {
  it("waits saying the disk is full, and completes once there is room", async () => {
    fullDiskWrites = 2;
    const { jobId } = await runJob("full-disk.m4a");
    expect(await stack.job(jobId)).toMatchObject({ stage: "done" });
    expect(fullDiskWrites).toBe(0);
    const shown = statusTexts(jobId);
    expect(shown.some((text) => text.includes("The disk I keep recordings on is full"))).toBe(true);
    expect(shown.some((text) => text.includes("Could not make notes"))).toBe(false);
    // Readiness can see it was full; a download that went through since says there is room.
    expect(stack.logs.join("")).toContain('"trouble":"disk_full"');
    expect(stack.app.diskFull.fullSince).toBeUndefined();
  });
});
