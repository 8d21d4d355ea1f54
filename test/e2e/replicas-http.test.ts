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
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";
import type { AppProcess } from "../../support/helpers/spawn-app.ts";

const JOBS = 50;

/**
 * On a redis-server of their own: the app has no key prefix setting, so the replicas need a
 * whole Redis, and a database of the shared one is shared with every other run of this test
 * (one emptying it under another's replicas).
 */
describe.skipIf(!HAS_REDIS_SERVER)("two HTTP replicas on one Redis", () => {
  let world: Awaited<ReturnType<typeof startProcesses>>;
  let replicas: AppProcess[];
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    world = await startProcesses();
    // Fifty recordings of one person at once: what is tested is that two replicas share the
    // work exactly once, not the fair-use limits (test/e2e/fair-use.test.ts has those).
    const env = {
      STORE_URL: redis.url,
      MAX_ACTIVE_JOBS_PER_USER: "50",
      MAX_ACTIVE_JOBS_PER_CHANNEL: "50",
      MAX_ACTIVE_JOBS: "50",
    };
    replicas = await Promise.all([world.app(env), world.app(env)]);
  }, 30_000);
  afterAll(async () => {
    await world?.stop();
    await redis?.stop();
  });

  it(`drives ${JOBS} jobs sent alternately to both to exactly one note set and one DOCX each`, async () => {
    world.emulator.knobs.noteMinChars = 13_000;
    const threads: string[] = [];
    await Promise.all(
      Array.from({ length: JOBS }, async (_, i) => {
        const replica = replicas[i % 2] as AppProcess;
        const file = world.fake.addFile({
          name: `meeting-${i}.mp3`,
          bytes: recordingBytes(`meeting-${i}.mp3`, 256, i),
          user: ALICE,
        });
        const message = world.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
        threads.push(message.ts);
        const event = fileShareMessageEvent(file, {
          channel: CHANNEL,
          user: ALICE,
          ts: message.ts,
        });
        const sent = await sendEvent(replica.url, SIGNING_SECRET, event, {
          teamId: world.fake.teamId,
        });
        expect(sent.status).toBe(200);
      }),
    );
    await Promise.all(
      threads.map(async (ts, i) => {
        const status = await eventually(
          () => statusMessage(world.fake.thread(CHANNEL, ts)),
          (m) => buttonValue(m, ACTIONS.skipNaming) !== undefined,
          { timeoutMs: 150_000 },
        );
        const replica = replicas[(i + 1) % 2] as AppProcess;
        const click = blockActionPayload({
          actionId: ACTIONS.skipNaming,
          value: buttonValue(status, ACTIONS.skipNaming) ?? "",
          user: ALICE,
          channel: CHANNEL,
          messageTs: status?.ts ?? "",
        });
        expect((await sendAction(replica.url, SIGNING_SECRET, click)).status).toBe(200);
      }),
    );
    for (const ts of threads) {
      await eventually(
        () => statusMessage(world.fake.thread(CHANNEL, ts)),
        (m) => buttonValue(m, ACTIONS.regenerate) !== undefined,
        { timeoutMs: 150_000 },
      );
    }
    for (const ts of threads) {
      const parts = noteParts(world.fake.thread(CHANNEL, ts)).map((m) => m.metadata?.event_payload);
      const total = parts[0]?.total as number;
      expect(total).toBeGreaterThan(1);
      expect(parts.map((p) => Number(p?.part)).sort((a, b) => a - b)).toEqual([
        ...Array(total).keys(),
      ]);
      expect(
        world.fake.uploads.filter(
          (u) => u.thread_ts === ts && u.completed && u.filename.endsWith(".docx"),
        ),
      ).toHaveLength(1);
    }
    expect(world.emulator.stats.audioSubmissions).toHaveLength(JOBS);
    expect(world.emulator.stats.noteSubmissions).toHaveLength(JOBS);
    // Both replicas did work.
    for (const replica of replicas) {
      expect(replica.lines.some((line) => line.includes('"msg":"job stage changed"'))).toBe(true);
    }
  }, 300_000);
});
