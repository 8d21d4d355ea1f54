import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { HAS_PRLIMIT, refuseFileWrites } from "../../support/helpers/file-size-limit.ts";

/** One `/readyz` probe: its status, body, and how long it took to answer. */
async function readyz(stack: Stack) {
  const started = performance.now();
  const res = await fetch(`${stack.origin}/readyz`);
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, ms: performance.now() - started };
}

/**
 * Probes until `done` accepts one; every probe on the way must have answered within a
 * second, whatever hangs behind it.
 */
async function probeUntil(stack: Stack, done: (r: Awaited<ReturnType<typeof readyz>>) => boolean) {
  const slow: number[] = [];
  const found = await eventually(
    async () => {
      const r = await readyz(stack);
      if (r.ms >= 1_000) slow.push(r.ms);
      return r;
    },
    done,
    { intervalMs: 50 },
  );
  expect(slow).toEqual([]);
  return found;
}

describe("readiness while Slack or the disk fails", () => {
  let stack: Stack;
  beforeAll(async () => {
    // Slack asked often while it answers too: what is tested is how fast a failure shows.
    stack = await startStack(
      {},
      { readiness: { timings: { slackOkEveryMs: 200, deadlineMs: 500 } } },
    );
  });
  afterAll(() => stack.stop());

  it("is 503 while Slack answers errors or nothing at all, each probe answered within a second, and 200 once Slack is back", async () => {
    expect((await readyz(stack)).status).toBe(200);
    stack.fake.knobs.outage = { status: 503 };
    const refused = await probeUntil(stack, (r) => r.status === 503);
    expect(refused.body).toMatchObject({ ok: false, store: true, slack: false, disk: true });
    stack.fake.knobs.outage = "hang";
    // Still 503 through a few checks that get no answer at all.
    const hangs = () => stack.fake.callsTo("auth.test").filter((c) => c.status === 0).length;
    await probeUntil(stack, (r) => r.status === 503 && hangs() >= 3);
    stack.fake.knobs.outage = undefined;
    await probeUntil(stack, (r) => r.status === 200);
    expect(stack.logs.join("")).toMatch(/"check":"slack".*"msg":"readiness: check fails"/);
  });

  it.skipIf(!HAS_PRLIMIT)(
    "is 503 while SQLite cannot write, logging why, and 200 once it can",
    async () => {
      expect((await readyz(stack)).status).toBe(200);
      const restore = refuseFileWrites();
      let down: Awaited<ReturnType<typeof readyz>>;
      try {
        down = await probeUntil(stack, (r) => r.status === 503);
      } finally {
        restore();
      }
      expect(down.body).toMatchObject({ ok: false, store: false, slack: true });
      expect(stack.logs.join("")).toMatch(
        /"check":"store","reason":"SQLite call failed: disk I\/O error"/,
      );
      await probeUntil(stack, (r) => r.status === 200);
    },
  );
});

describe("readiness when the bot's own Slack calls fail", () => {
  let stack: Stack;
  beforeAll(async () => {
    // Production's pace while Slack answers: half a minute between two auth.test.
    stack = await startStack({}, { readiness: { timings: { slackOkEveryMs: 30_000 } } });
  });
  afterAll(() => stack.stop());

  it("asks auth.test at once when a status update finds Slack down, not half a minute later", async () => {
    stack.emulator.knobs.audioDurationMs = 60_000; // the job keeps polling, and drawing
    const upload = await shareRecording(stack, "standup.m4a");
    await eventually(
      () => statusMessage(stack.thread(upload.ts)),
      (m) => /Transcribing/.test(m?.text ?? ""),
    );
    expect((await readyz(stack)).status).toBe(200);
    const asked = stack.fake.callsTo("auth.test").length;
    stack.fake.knobs.outage = { status: 503 };
    const down = await probeUntil(stack, (r) => r.status === 503);
    expect(down.body).toMatchObject({ slack: false });
    expect(stack.fake.callsTo("auth.test").length).toBeGreaterThan(asked);
    stack.fake.knobs.outage = undefined;
    await probeUntil(stack, (r) => r.status === 200);
  });
});
