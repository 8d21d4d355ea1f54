/**
 * Dedupe (docs/architecture.md): Slack retries an event and one upload can arrive as several events,
 * so the upload itself (`channel:file`) is claimed atomically before a job is created —
 * whichever install (`team_id`) an event came through. However often and
 * however concurrently the same recording is started, exactly one job exists.
 */
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Admission,
  createServices,
  defaultAdmissionLimits,
  JobRepository,
  type StartResult,
} from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { dropRedisKeys, runPrefix } from "../../support/crash/harness.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const RUN_PREFIX = runPrefix();
const logger = pino({ level: "silent" });

/** A service whose runner only counts kicks: no step runs, only creation is under test. */
function serviceOn(store: Store) {
  const kicks: string[] = [];
  const repo = new JobRepository(store, { retentionMs: 60_000, logger });
  const services = createServices({
    repo,
    store,
    admission: new Admission({
      store,
      limits: defaultAdmissionLimits,
      logger,
      stillHolds: async () => true,
    }),
    runner: {
      kick: (id) => kicks.push(id),
      abort: () => {},
      settle: () => {},
      discard: async () => {},
    },
    logger,
    retentionMs: 60_000,
  });
  const service = services.service;
  return { service, repo, kicks };
}

const created = (results: StartResult[]) => results.filter((r) => r.status === "created");
const duplicates = (results: StartResult[]) => results.filter((r) => r.status === "duplicate");

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir("mn-dupes-");
});
afterAll(async () => {
  await temp.cleanup();
  if (HAS_REDIS) await dropRedisKeys(redisUrl(), RUN_PREFIX);
});

const random = () => Math.random().toString(36).slice(2, 10);
const backends = [
  { name: "memory", enabled: true, url: () => "memory://" },
  { name: "SQLite", enabled: true, url: () => `sqlite://${join(temp.dir, `${random()}.db`)}` },
  { name: "Redis", enabled: HAS_REDIS, url: () => redisUrl() },
];

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`dedupe on ${backend.name}`, () => {
    const stores: Store[] = [];
    const open = async () => {
      const store = await openStore(backend.url(), { keyPrefix: `${RUN_PREFIX}-${random()}` });
      stores.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((store) => store.close()));
    });

    it("the same channel:file started three times in a row makes one job", async () => {
      const { service, repo, kicks } = serviceOn(await open());
      const input = { origin: origin(), source: source(), options: {} };
      const results: StartResult[] = [];
      for (let i = 0; i < 3; i++) results.push(await service.start(input));
      expect(results.map((r) => r.status)).toEqual(["created", "duplicate", "duplicate"]);
      const job = created(results)[0];
      expect(await repo.listActiveIds()).toEqual([job?.status === "created" && job.job.id]);
      expect(await service.listByChannel("T1", "C1")).toHaveLength(1);
      expect(kicks).toHaveLength(1);
    });

    it("twenty concurrent starts of the same file make one job", async () => {
      const { service, repo, kicks } = serviceOn(await open());
      const input = { origin: origin(), source: source(), options: {} };
      const results = await Promise.all(Array.from({ length: 20 }, () => service.start(input)));
      expect(created(results)).toHaveLength(1);
      expect(duplicates(results)).toHaveLength(19);
      // The failed start may leave its id in the active index (it joins before its record
      // is written); with no record behind it, the runner's sweep drops it.
      const jobs = await Promise.all((await repo.listActiveIds()).map((id) => repo.get(id)));
      expect(jobs.filter((job) => job !== undefined)).toHaveLength(1);
      expect(await service.listByChannel("T1", "C1")).toHaveLength(1);
      expect(kicks).toHaveLength(1);
    });

    it("a different channel or a different file is a different job", async () => {
      const { service, repo } = serviceOn(await open());
      const file = source();
      const other = source();
      const starts = [
        { origin: origin(), source: file },
        { origin: origin({ channelId: "C2" }), source: file },
        { origin: origin(), source: other },
      ];
      const results = await Promise.all(
        [...starts, ...starts].map((s) => service.start({ ...s, options: {} })),
      );
      expect(created(results)).toHaveLength(3);
      expect(duplicates(results)).toHaveLength(3);
      const jobs = created(results).map((r) => (r.status === "created" ? r.job : undefined));
      const keys = jobs.map((j) => `${j?.origin.channelId}:${j?.source.fileId}`);
      expect(new Set(keys).size).toBe(3);
      expect(await repo.listActiveIds()).toHaveLength(3);
    });

    it("one upload delivered through several installs (Slack Connect) makes one job", async () => {
      const { service } = serviceOn(await open());
      const file = source();
      const results = await Promise.all(
        ["T1", "T2", "E3"].map((teamId) =>
          service.start({ origin: origin({ teamId }), source: file, options: {} }),
        ),
      );
      expect(created(results)).toHaveLength(1);
      expect(duplicates(results)).toHaveLength(2);
    });
  });
}

describe.skipIf(!HAS_REDIS)("dedupe across two replicas on one Redis", () => {
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  it("twenty concurrent starts split over two services on two connections make one job", async () => {
    const keyPrefix = `${RUN_PREFIX}-${random()}`;
    const [storeA, storeB] = await Promise.all([
      openStore(redisUrl(), { keyPrefix }),
      openStore(redisUrl(), { keyPrefix }),
    ]);
    stores.push(storeA, storeB);
    const a = serviceOn(storeA);
    const b = serviceOn(storeB);
    const input = { origin: origin(), source: source(), options: {} };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).service.start(input)),
    );
    expect(created(results)).toHaveLength(1);
    expect(duplicates(results)).toHaveLength(19);
    expect(a.kicks.length + b.kicks.length).toBe(1);
    // Both replicas see the same single job.
    expect(await a.repo.listActiveIds()).toHaveLength(1);
    expect(await b.repo.listActiveIds()).toEqual(await a.repo.listActiveIds());
    expect(await b.service.listByChannel("T1", "C1")).toHaveLength(1);
    // And a later retry of the event, on either replica, is still a duplicate.
    expect((await a.service.start(input)).status).toBe("duplicate");
    expect((await b.service.start(input)).status).toBe("duplicate");
  });
});

describe("dedupe when the job could not be saved", () => {
  // Regression: the dedupe key is claimed before the job is saved, and was once kept when
  // saving failed (a store blip). Slack delivers the unacknowledged event again, and the
  // retry was taken for a "duplicate" of a job that did not exist: the recording was dropped
  // for the claim's lifetime (36 h). `JobService.start` now gives the claim back.
  it("a start that failed to save its job does not turn the retry into a duplicate", async () => {
    const store = await openStore("memory://", { keyPrefix: `${RUN_PREFIX}-${random()}` });
    let failNextJobWrite = true;
    const flaky = new Proxy(store, {
      get(target, property) {
        if (property === "set") {
          return async (ns: string, key: string, value: unknown, ttlMs?: number) => {
            if (ns === "jobs" && failNextJobWrite) {
              failNextJobWrite = false;
              throw new Error("Redis SET failed: connection reset");
            }
            return target.set(ns as "jobs", key, value, ttlMs);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    try {
      const { service, repo } = serviceOn(flaky);
      const input = { origin: origin(), source: source(), options: {} };
      await expect(service.start(input)).rejects.toThrow("connection reset");
      // Slack retries the event.
      const retried = await service.start(input);
      expect(retried.status).toBe("created");
      // The failed start may leave its id in the active index (it joins before its record
      // is written); with no record behind it, the runner's sweep drops it.
      const jobs = await Promise.all((await repo.listActiveIds()).map((id) => repo.get(id)));
      expect(jobs.filter((job) => job !== undefined)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
