/**
 * A restart resumes its own interrupted jobs within 5 s (issue 23), with the production
 * lease (60 s) and queue check (1 s): kill -9 the bot mid-download, start it again on the
 * same store, and time how long the restarted process takes to get the job past the
 * download. Before, it waited for the dead process's claim (SQLite) or lease (Redis) to
 * lapse: a minute.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dropRedisKeys,
  randomId,
  runPrefix,
  spawnWorker,
  type WorkerEnv,
  type WorkerProcess,
} from "../../../support/crash/harness.ts";
import { createEmulator, type Emulator } from "../../../support/emulator/create-emulator.ts";
import { recordingBytes } from "../../../support/fakes/recording-bytes.ts";
import { eventually } from "../../../support/helpers/eventually.ts";
import { HAS_REDIS, redisUrl } from "../../../support/helpers/redis-url.ts";
import { makeTempDir } from "../../../support/helpers/temp-files.ts";

const RUN_PREFIX = runPrefix();
/**
 * From the restart to the interrupted step running again: 5 s is issue 23's figure on a
 * quiet machine (a process start and a queue check); what this test tells apart is resuming
 * at once from waiting out the dead process's 60 s lease, so the bound is half that lease,
 * which a machine running two suites at once still meets.
 */
const RESUME_BOUND_MS = 30_000;

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let emulator: Emulator;
let sourcePath: string;

beforeAll(async () => {
  [temp, emulator] = await Promise.all([makeTempDir("mn-resume-"), createEmulator()]);
  sourcePath = await temp.file("recording.m4a", recordingBytes("recording.m4a", 8192, 3));
});
afterAll(async () => {
  await emulator?.close();
  await temp?.cleanup();
  if (HAS_REDIS) await dropRedisKeys(redisUrl(), RUN_PREFIX);
});

/** When the store's due queue next has the job due (ms since the epoch), read from outside. */
type DueAt = (storeUrl: string, prefix: string, jobId: string) => Promise<number | undefined>;

const sqliteDueAt: DueAt = async (storeUrl, prefix, jobId) => {
  const db = new DatabaseSync(storeUrl.slice("sqlite://".length), { readOnly: true });
  try {
    const row = db.prepare("SELECT at FROM due WHERE scope = ? AND id = ?").get(prefix, jobId);
    return (row as { at: number } | undefined)?.at;
  } finally {
    db.close();
  }
};

const redisDueAt: DueAt = async (storeUrl, prefix, jobId) => {
  const client = createClient({ url: storeUrl });
  await client.connect();
  try {
    return (await client.zScore(`${prefix}:due`, jobId)) ?? undefined;
  } finally {
    client.destroy();
  }
};

const backends = [
  {
    name: "SQLite",
    enabled: true,
    storeUrl: (dir: string) => `sqlite://${join(dir, "store.db")}`,
    dueAt: sqliteDueAt,
  },
  {
    name: "Redis",
    enabled: HAS_REDIS,
    storeUrl: () => redisUrl(),
    dueAt: redisDueAt,
  },
];

describe("a restarted bot", { concurrent: true }, () => {
  for (const backend of backends) {
    it.skipIf(!backend.enabled)(
      `resumes the download it was killed in without waiting out the dead lease on ${backend.name}`,
      async () => {
        const marker = `resume-${randomId()}`;
        const dir = join(temp.dir, marker);
        const env: WorkerEnv = {
          STORE_URL: backend.storeUrl(dir),
          KEY_PREFIX: `${RUN_PREFIX}-${marker}`,
          NOTE_TAKER_BASE_URL: emulator.baseUrl,
          NOTE_TAKER_API_KEY: emulator.apiKey,
          JOURNAL: join(dir, "journal.jsonl"),
          SOURCE: sourcePath,
          TEMP_DIR: dir,
          // Production settings: a lapse would take a minute.
          LEASE_TTL_MS: "60000",
          QUEUE_CHECK_MS: "1000",
        };
        const first = await spawnWorker({ ...env, DOWNLOAD_DELAY_MS: "60000" });
        let second: WorkerProcess | undefined;
        try {
          const started = await first.start({ fileId: `F${marker}`, filename: `${marker}.m4a` });
          if (started.status !== "created") throw new Error(JSON.stringify(started));
          const id = started.jobId;
          // Killed once the download is under way (its attempt's file named in the record)
          // and the due queue holds the job a lease ahead (claims move a held job there).
          await eventually(
            () => first.job(id),
            (job) => job?.stage === "downloading" && /source-\w+\.m4a$/.test(job.tempPath),
            { what: "the download under way", context: first.output },
          );
          await eventually(
            () => backend.dueAt(env.STORE_URL, env.KEY_PREFIX, id),
            (at) => at !== undefined && at > Date.now() + 30_000,
            { what: "the job a lease ahead in the due queue", context: first.output },
          );
          await first.kill();

          const restartedAt = performance.now();
          second = await spawnWorker(env);
          const worker = second;
          const job = await eventually(
            () => worker.job(id),
            (j) => j !== undefined && j.stage !== "queued" && j.stage !== "downloading",
            { what: "the download to run again", timeoutMs: 45_000, context: worker.output },
          );
          const took = performance.now() - restartedAt;
          expect(job?.stage).not.toBe("failed");
          expect(took).toBeLessThan(RESUME_BOUND_MS);
        } finally {
          await first.kill();
          await second?.stop();
        }
      },
      90_000,
    );
  }
});
