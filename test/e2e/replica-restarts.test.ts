import { mkdir } from "node:fs/promises";
import { join } from "node:path";
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
import { FFMPEG_AVAILABLE, movie } from "../../support/helpers/media-files.ts";
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";
import type { AppProcess } from "../../support/helpers/spawn-app.ts";

const RECORDINGS = 10;

/*
 * Issue 34: a replica that starts while another works must not delete that replica's
 * recordings. Two replicas on one host share one temp folder and one Redis (a redis-server
 * of the test's own); the second is started, stopped and started again three times while
 * the first downloads (slowly) and prepares ten movies with FFmpeg.
 */
describe.skipIf(!HAS_REDIS_SERVER || !FFMPEG_AVAILABLE)(
  "a replica restarting beside one at work",
  () => {
    let world: Awaited<ReturnType<typeof startProcesses>>;
    let redis: PrivateRedis;
    let env: Record<string, string>;
    beforeAll(async () => {
      redis = await startPrivateRedis();
      world = await startProcesses();
      const shared = join(world.temp.dir, "shared-tmp");
      await mkdir(shared, { recursive: true });
      env = {
        STORE_URL: redis.url,
        TMPDIR: shared,
        MAX_ACTIVE_JOBS_PER_USER: String(RECORDINGS),
        MAX_ACTIVE_JOBS_PER_CHANNEL: String(RECORDINGS),
      };
    }, 30_000);
    afterAll(async () => {
      await world?.stop();
      await redis?.stop();
    });

    it("delivers all ten once, none failed", async () => {
      const worker = await world.app(env);
      const source = join(world.temp.dir, "standup.mkv");
      await movie(source, { seconds: 3, hz: 330, audio: "libopus" });
      // Downloads that take a while: the second replica starts while they are written.
      world.fake.knobs.downloadBytesPerSecond = 20_000;
      const threads: string[] = [];
      for (let i = 0; i < RECORDINGS; i++) {
        const file = world.fake.addFile({ name: `standup-${i}.mkv`, path: source, user: ALICE });
        const message = world.fake.shareFile(file, { channel: CHANNEL, user: ALICE });
        threads.push(message.ts);
        const event = fileShareMessageEvent(file, {
          channel: CHANNEL,
          user: ALICE,
          ts: message.ts,
        });
        const sent = await sendEvent(worker.url, SIGNING_SECRET, event, {
          teamId: world.fake.teamId,
        });
        expect(sent.status).toBe(200);
      }
      await eventually(
        () => world.fake.downloads.length,
        (n) => n > 0,
        // A ceiling for a loaded machine (the job's checks come first); it ends on the download.
        { what: "the first download under way", timeoutMs: 60_000 },
      );
      let other: AppProcess | undefined;
      for (let round = 0; round < 3; round++) {
        other = await world.app(env);
        if (round < 2) await other.stop();
      }
      world.fake.knobs.downloadBytesPerSecond = undefined;
      await Promise.all(
        threads.map(async (ts) => {
          const status = await eventually(
            () => statusMessage(world.fake.thread(CHANNEL, ts)),
            (m) =>
              buttonValue(m, ACTIONS.skipNaming) !== undefined ||
              buttonValue(m, ACTIONS.retry) !== undefined,
            { timeoutMs: 90_000, what: `the naming prompt of ${ts}` },
          );
          expect(buttonValue(status, ACTIONS.retry), status?.text).toBeUndefined();
          const click = blockActionPayload({
            actionId: ACTIONS.skipNaming,
            value: buttonValue(status, ACTIONS.skipNaming) ?? "",
            user: ALICE,
            channel: CHANNEL,
            messageTs: status?.ts ?? "",
          });
          expect((await sendAction(worker.url, SIGNING_SECRET, click)).status).toBe(200);
        }),
      );
      for (const ts of threads) {
        const done = await eventually(
          () => statusMessage(world.fake.thread(CHANNEL, ts)),
          (m) =>
            buttonValue(m, ACTIONS.regenerate) !== undefined ||
            buttonValue(m, ACTIONS.retry) !== undefined,
          { timeoutMs: 60_000, what: `the notes of ${ts}` },
        );
        expect(buttonValue(done, ACTIONS.retry), done?.text).toBeUndefined();
        expect(noteParts(world.fake.thread(CHANNEL, ts)).length).toBeGreaterThan(0);
        expect(
          world.fake.uploads.filter(
            (u) => u.thread_ts === ts && u.completed && u.filename.endsWith(".docx"),
          ),
        ).toHaveLength(1);
      }
      expect(world.emulator.stats.audioSubmissions).toHaveLength(RECORDINGS);
      const lines = [...worker.lines, ...(other?.lines ?? [])].join("\n");
      expect(lines).not.toContain("could not be written");
    }, 180_000);
  },
);
