import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ALICE,
  eventually,
  SIGNING_SECRET,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import { appHomeOpenedEvent } from "../../support/fake-slack/slack-payloads.ts";
import { sendEvent } from "../../support/fake-slack/slack-request.ts";
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";

const LOST = "This recording's notes were lost when the bot's storage was reset; upload it again.";

/** One `/readyz` probe: its status, body, and how long it took to answer. */
async function readyz(stack: Stack) {
  const started = performance.now();
  const res = await fetch(`${stack.origin}/readyz`);
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, ms: performance.now() - started };
}

describe.skipIf(!HAS_REDIS_SERVER)("the bot on a Redis that hangs or loses its data", () => {
  let redis: PrivateRedis;
  let stack: Stack;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startStack({ STORE_URL: redis.url }, { storeTimeoutMs: 500 });
  });
  afterEach(() => redis.resume());
  afterAll(async () => {
    redis.resume();
    await stack.stop();
    await redis.stop();
  });

  it("answers /readyz within a second and 503 while Redis is paused, answers Slack's requests instead of hanging, and is ready again once Redis resumes", async () => {
    expect((await readyz(stack)).status).toBe(200);
    redis.pause();
    const slow: number[] = [];
    const down = await eventually(
      async () => {
        const r = await readyz(stack);
        if (r.ms >= 1_000) slow.push(r.ms);
        return r;
      },
      (r) => r.status === 503,
      { intervalMs: 50 },
    );
    expect(slow).toEqual([]);
    expect(down.body).toMatchObject({ ok: false, store: false, slack: true });
    // A Slack request needs the store (its signature is claimed there): answered within
    // Slack's 3 s, not held for as long as Redis is paused.
    const answer = await stack.deliver.event(appHomeOpenedEvent(ALICE));
    expect(answer.ms).toBeLessThan(2_000);
    redis.resume();
    await eventually(
      () => readyz(stack),
      (r) => r.status === 200,
    );
  });

  it("finds Redis restarted empty: logs it once, reports it, says so in the lost job's thread and App Home, and makes no second job of the upload Slack sends again", async () => {
    stack.emulator.knobs.audioDurationMs = 60_000; // the job stays in transcription
    const upload = await shareRecording(stack, "weekly-sync.m4a");
    const before = await eventually(
      () => statusMessage(stack.thread(upload.ts)),
      (m) => /Transcribing/.test(m?.text ?? ""),
    );
    expect(before?.metadata?.event_payload).toMatchObject({ file_id: upload.file.id });

    await redis.restartEmpty();
    const lost = await eventually(
      () => statusMessage(stack.thread(upload.ts)),
      (m) => m?.text === LOST,
    );
    expect(JSON.stringify(lost?.blocks)).not.toMatch(/button/);
    const logs = () => stack.logs.filter((l) => l.includes("the store lost its data"));
    expect(logs()).toHaveLength(1);
    expect(logs()[0]).toMatch(/"level":50/);
    // Ready again (the store takes writes) and saying when the store lost its data.
    await eventually(
      () => readyz(stack),
      (r) => r.status === 200 && typeof r.body.storeReset === "string",
    );

    // Slack sends the upload again (a retry, or the file's other event): one job only.
    const created = () => stack.logs.filter((l) => l.includes('"msg":"job created"')).length;
    const jobs = created();
    const retried = await sendEvent(stack.url, SIGNING_SECRET, upload.event, {
      teamId: stack.fake.teamId,
      eventId: upload.sent.eventId,
      retryNum: 1,
      retryReason: "http_timeout",
    });
    expect(retried.status).toBe(200);
    await stack.settled();
    expect(created()).toBe(jobs);
    expect(stack.thread(upload.ts).filter((m) => m.metadata !== undefined)).toHaveLength(1);
    // A new upload after the loss is a new job.
    stack.emulator.knobs.audioDurationMs = 0;
    const again = await shareRecording(stack, "weekly-sync (again).m4a");
    await eventually(
      () => statusMessage(stack.thread(again.ts)),
      (m) => /Transcribing|Name|speaker/.test(m?.text ?? ""),
    );
    expect(created()).toBe(jobs + 1);

    // Alice's App Home says what was lost.
    await stack.deliver.event(appHomeOpenedEvent(ALICE));
    const home = await eventually(
      () => stack.fake.views.findLast((v) => v.op === "publish" && v.user_id === ALICE),
      (v) => v !== undefined && JSON.stringify(v.view).includes("storage was reset"),
    );
    expect(JSON.stringify(home?.view)).toContain("weekly-sync.m4a");
  });
});
