/**
 * The wall clock moved ±10 min under the job runner (issue 23). `Date` is faked here and
 * advances with real time, so every reading of the wall clock anywhere in the job layer or
 * the store sees the jump; the system clock itself is left alone. Due times and leases must
 * not move: work due in a second runs in about a second, while running and across a restart,
 * and a lease renewed in time stays held.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AudioResult, Task } from "../../src/notetaker/index.ts";
import { createPollSchedule } from "../../src/notetaker/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { dropRedisKeys, runPrefix } from "../../support/crash/harness.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { origin, source, testJobs } from "../../support/helpers/jobs-kit.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const RUN_PREFIX = runPrefix();
const TEN_MINUTES = 10 * 60_000;
/** A poll every second: the work "due in 1 s". */
const POLL_MS = 1000;

/** A Note Service whose audio task never ends; each poll is timed on the monotonic clock. */
class TimedPolls extends ScriptedNoteTaker {
  readonly times: number[] = [];
  override audioScript: Task<AudioResult>[] = [
    { status: "running", rawStatus: "processing", progress: null },
  ];

  override async getAudioTask(taskId: string): Promise<Task<AudioResult>> {
    this.times.push(performance.now());
    return super.getAudioTask(taskId);
  }
}

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let sourcePath: string;
let count = 0;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  temp = await makeTempDir("mn-clock-");
  sourcePath = await temp.file("rec.m4a", recordingBytes("rec.m4a"));
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true, advanceTimeDelta: 5 });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.useRealTimers();
  await temp.cleanup();
});
afterEach(async () => {
  if (HAS_REDIS) await dropRedisKeys(redisUrl(), RUN_PREFIX);
});

/** Moves the (fake) wall clock; real time goes on. */
const jump = (ms: number) => vi.setSystemTime(Date.now() + ms);

const backends = [
  { name: "memory", enabled: true, restarts: false, url: () => "memory://" },
  { name: "SQLite", enabled: true, restarts: true, url: () => `sqlite://${temp.dir}/store.db` },
  { name: "Redis", enabled: HAS_REDIS, restarts: true, url: () => redisUrl() },
];

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`a wall-clock jump on ${backend.name}`, () => {
    let keyPrefix: string;
    beforeEach(() => {
      count += 1;
      keyPrefix = `${RUN_PREFIX}-${count}`;
    });

    async function open(): Promise<Store> {
      const store = await openStore(backend.url(), { keyPrefix });
      cleanups.push(() => store.close());
      return store;
    }

    function runner(
      store: Store,
      client: TimedPolls,
      gateway = new RecordingGateway({ sourcePath }),
    ) {
      const jobs = testJobs({
        store,
        client,
        gateway,
        tempDir: temp.dir,
        overrides: {
          schedule: createPollSchedule({ initialMs: POLL_MS, maxMs: POLL_MS, jitter: 0 }),
          runner: { leaseTtlMs: 300, queueCheckMs: 200, claimGapMs: 5, statusThrottleMs: 0 },
        },
      });
      cleanups.push(() => jobs.runner.stop(100));
      return jobs;
    }

    async function newJob(jobs: ReturnType<typeof runner>): Promise<string> {
      const result = await jobs.service.start({ origin: origin(), source: source(), options: {} });
      if (result.status !== "created") throw new Error(result.status);
      return result.job.id;
    }

    /** Once the job's poll `n` is saved, with its next poll planned a second later. */
    const polled = (jobs: ReturnType<typeof runner>, id: string, n: number) =>
      eventually(
        () => jobs.service.get(id),
        (job) => job?.stage === "transcribing" && job.audio.pollAttempt >= n,
        { what: `poll ${n} saved` },
      );

    const nthPoll = (client: TimedPolls, n: number) =>
      eventually(
        () => client.times.length,
        (length) => length >= n,
        { what: `poll ${n}`, timeoutMs: 5000 },
      );

    it("runs work due in a second in about a second after the clock moves 10 min back, then forward", async () => {
      const client = new TimedPolls();
      const jobs = runner(await open(), client);
      await jobs.runner.start();
      const id = await newJob(jobs);
      await polled(jobs, id, 1);
      jump(-TEN_MINUTES);
      await nthPoll(client, 2);
      await polled(jobs, id, 2);
      jump(TEN_MINUTES);
      await nthPoll(client, 3);
      const [first = 0, second = 0, third = 0] = client.times;
      // Not stalled by the step back, not hastened by the step forward.
      expect(second - first).toBeGreaterThanOrEqual(POLL_MS - 50);
      expect(second - first).toBeLessThan(POLL_MS + 1000);
      expect(third - second).toBeGreaterThanOrEqual(POLL_MS - 50);
      expect(third - second).toBeLessThan(POLL_MS + 1000);
    });

    // Only a backend whose data outlives the process can be restarted.
    if (backend.restarts) {
      it("runs work due in a second in about a second when the clock moved 10 min back while stopped", async () => {
        const client = new TimedPolls();
        const store = await open();
        const jobs = runner(store, client);
        await jobs.runner.start();
        const id = await newJob(jobs);
        await polled(jobs, id, 1);
        await jobs.runner.stop(100);
        await store.close();
        jump(-TEN_MINUTES);
        const restarted = runner(await open(), client);
        await restarted.runner.start();
        await nthPoll(client, 2);
        const [first = 0, second = 0] = client.times;
        expect(second - first).toBeGreaterThanOrEqual(POLL_MS - 50);
        expect(second - first).toBeLessThan(POLL_MS + 1500);
      });
    }

    it("keeps the lease of a download under way when the clock moves 10 min forward: it finishes once", async () => {
      const store = await open();
      let renewals = 0;
      const renew = store.renewLease.bind(store);
      store.renewLease = (...args) => {
        renewals += 1;
        return renew(...args);
      };
      const gateway = new RecordingGateway({ sourcePath });
      const download = gateway.downloadSource.bind(gateway);
      const started: string[] = [];
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      gateway.downloadSource = async (...args) => {
        started.push(args[1]);
        await gate;
        return download(...args);
      };
      const client = new TimedPolls();
      client.audioScript = [{ status: "completed", result: { dialogUrl: "https://r.test/d" } }];
      const jobs = runner(store, client, gateway);
      await jobs.runner.start();
      const id = await newJob(jobs);
      await eventually(
        () => started.length,
        (n) => n === 1,
        { what: "the download to start" },
      );
      jump(TEN_MINUTES);
      // Renewed after the jump (every 100 ms for a lease of 300 ms): still this step's.
      const before = renewals;
      await eventually(
        () => renewals,
        (n) => n >= before + 3,
        { what: "three renewals" },
      );
      release();
      const job = await eventually(
        () => jobs.service.get(id),
        (j) => j?.stage === "naming" || j?.stage === "failed",
        { what: "the job to be transcribed" },
      );
      expect(job?.stage).toBe("naming");
      expect(started).toHaveLength(1);
      expect(gateway.records.filter((r) => r.op === "download")).toHaveLength(1);
    });
  });
}
