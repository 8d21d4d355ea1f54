/**
 * Scale-out (docs/architecture.md, "The store"): several replicas share one Redis; each job step runs under the
 * job's lease, so exactly one replica drives a job at a time, and a dead replica's jobs are
 * picked up once its lease lapses.
 */

import { rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job, NoteTakerPort, SlackPort } from "../../src/jobs/index.ts";
import { fastRetryPolicy, NoteTakerClient } from "../../src/notetaker/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import {
  deliveredOf,
  dropRedisKeys,
  findInJournal,
  randomId,
  readJournal,
  runPrefix,
  spawnWorker,
  type WorkerEnv,
  type WorkerProcess,
} from "../../support/crash/harness.ts";
import { createEmulator, type Emulator } from "../../support/emulator/create-emulator.ts";
import type { KnobsPatch } from "../../support/emulator/knobs.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { origin, source, testJobs } from "../../support/helpers/jobs-kit.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const RUN_PREFIX = runPrefix();

/** One call a runner made on behalf of a job: the Note Service or Slack. */
interface CallRecord {
  runner: string;
  call: string;
  /** The task id, or the file path for transfers (as the call saw it). */
  key: string;
  /** The job it was for (its marker), resolved from the key. */
  job: string;
  start: number;
  end: number;
}

/** Every call sleeps this long inside its recorded interval, so overlaps would show. */
const CALL_DELAY_MS = 4;

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let sourcePath: string;

beforeAll(async () => {
  temp = await makeTempDir("mn-replicas-");
  sourcePath = await temp.file("recording.m4a", recordingBytes("recording.m4a", 8192, 5));
});
afterAll(async () => {
  await temp?.cleanup();
  if (HAS_REDIS) await dropRedisKeys(redisUrl(), RUN_PREFIX);
});

/**
 * What one test runs on: a Note Service emulator of its own (the tests run side by side, and
 * each counts the tasks it was given), and what it started, stopped in reverse once it ends.
 */
interface World {
  emulator: Emulator;
  defer(stop: () => Promise<void>): void;
  /** Replica B's log lines, for failure messages. */
  logs: string[];
}

async function worldFor(
  onTestFinished: (fn: () => Promise<void>) => void,
  knobs: KnobsPatch,
): Promise<World> {
  const emulator = await createEmulator({ knobs });
  const stops: (() => Promise<void>)[] = [];
  onTestFinished(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
    await emulator.close();
  });
  return { emulator, defer: (stop) => void stops.push(stop), logs: [] };
}

const client = (emulator: Emulator) =>
  new NoteTakerClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.apiKey,
    retryPolicy: fastRetryPolicy,
  });

/** The marker (file name stem = context text) of the job behind a task id. */
function jobOfTask(emulator: Emulator, taskId: string): string {
  const audio = emulator.stats.audioSubmissions.find((s) => s.taskId === taskId);
  if (audio) return audio.filename.replace(/\.m4a$/, "");
  const note = emulator.stats.noteSubmissions.find((s) => s.taskId === taskId);
  return note?.contextText ?? `?${taskId}`;
}
const taskIdIn = (url: string) => /([0-9a-f-]{36})/.exec(url)?.[1] ?? url;
const markerOf = (job: Job) => job.options.contextText ?? `?${job.id}`;

/** Wraps a port so that every call is timed and attributed to `runner` and a job. */
function instrumentPort(
  port: NoteTakerPort,
  runner: string,
  log: CallRecord[],
  emulator: Emulator,
): NoteTakerPort {
  const jobOf = (taskId: string) => jobOfTask(emulator, taskId);
  const timed = async <R>(call: string, key: string, job: string, run: () => Promise<R>) => {
    const start = performance.now();
    try {
      await sleep(CALL_DELAY_MS);
      return await run();
    } finally {
      log.push({ runner, call, key, job, start, end: performance.now() });
    }
  };
  return {
    submitAudio: (input, signal) =>
      timed("submitAudio", input.path, input.filename.replace(/\.m4a$/, ""), () =>
        port.submitAudio(input, signal),
      ),
    // A relay is an audio submission too, of the job's recording as it downloads.
    relayAudio: (input, signal) =>
      timed("submitAudio", input.filename, input.filename.replace(/\.m4a$/, ""), () =>
        port.relayAudio(input, signal),
      ),
    getAudioTask: (taskId, signal) =>
      timed("getAudioTask", taskId, jobOf(taskId), () => port.getAudioTask(taskId, signal)),
    fetchDialog: (url, signal) =>
      timed("fetchDialog", taskIdIn(url), jobOf(taskIdIn(url)), () =>
        port.fetchDialog(url, signal),
      ),
    submitDialog: (input, signal) =>
      timed("submitDialog", `note:${input.contextText}`, input.contextText ?? "?", () =>
        port.submitDialog(input, signal),
      ),
    getNoteTask: (taskId, signal) =>
      timed("getNoteTask", taskId, jobOf(taskId), () => port.getNoteTask(taskId, signal)),
    downloadDocx: (url, path, signal) =>
      timed("downloadDocx", path, jobOf(taskIdIn(url)), () => port.downloadDocx(url, path, signal)),
  };
}

/** Wraps the (shared) Slack fake the same way, for the calls that move or post things. */
function instrumentGateway(gateway: SlackPort, runner: string, log: CallRecord[]): SlackPort {
  const timed = async <R>(call: string, job: Job, run: () => Promise<R>) => {
    const start = performance.now();
    try {
      await sleep(CALL_DELAY_MS);
      return await run();
    } finally {
      log.push({ runner, call, key: job.id, job: markerOf(job), start, end: performance.now() });
    }
  };
  return {
    showStatus: (job) => gateway.showStatus(job),
    splitNote: (markdown) => gateway.splitNote(markdown),
    findDelivered: (job) => gateway.findDelivered(job),
    downloadSource: (job, dest, signal, limits) =>
      timed("downloadSource", job, () => gateway.downloadSource(job, dest, signal, limits)),
    postNotePart: (job, text, index, total) =>
      timed("postNotePart", job, () => gateway.postNotePart(job, text, index, total)),
    uploadDocx: (job, path, signal) =>
      timed("uploadDocx", job, () => gateway.uploadDocx(job, path, signal)),
    uploadTranscript: (job, dialog, map, signal) =>
      timed("uploadTranscript", job, () => gateway.uploadTranscript(job, dialog, map, signal)),
    deleteFile: (job, fileId) => gateway.deleteFile(job, fileId),
    createCanvas: (job, markdown, people) => gateway.createCanvas(job, markdown, people),
    editCanvas: (job, id, markdown, people) => gateway.editCanvas(job, id, markdown, people),
    shareCanvas: (job, id) => gateway.shareCanvas(job, id),
    findCanvas: (job, since) => gateway.findCanvas(job, since),
    review: gateway.review,
  };
}

/** Pairs of calls for the same job by different runners whose intervals overlap. */
function overlaps(log: CallRecord[]): [CallRecord, CallRecord][] {
  const found: [CallRecord, CallRecord][] = [];
  const byJob = Map.groupBy(log, (r) => r.job);
  for (const records of byJob.values()) {
    for (const a of records) {
      for (const b of records) {
        if (a.runner < b.runner && a.start < b.end && b.start < a.end) found.push([a, b]);
      }
    }
  }
  return found;
}

/** One set of parts (every index once, in order) and one DOCX for the job. */
function expectOneDelivery(gateway: RecordingGateway, job: Job) {
  const delivered = deliveredOf(gateway.records, job.id);
  expect(delivered.totals).toHaveLength(1);
  const total = delivered.totals[0] ?? 0;
  expect(total).toBeGreaterThanOrEqual(3);
  expect(delivered.indexes).toEqual([...Array(total).keys()]);
  expect(delivered.docx).toHaveLength(1);
  expect(job.stage === "done" && job.docxFileId).toBe(delivered.docx[0]?.fileId);
}

/** A store whose leases always succeed: what a replica without working leases would do. */
function withoutLeases(store: Store): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === "acquireLease") return async () => randomId();
      if (property === "renewLease") return async () => true;
      if (property === "releaseLease") return async () => {};
      // A claim from the due queue that leases nothing and hides the job for 1 ms only:
      // every replica gets every due job.
      if (property === "claimDue") {
        return (now: number, limit: number) =>
          target.claimDue(now, limit, `no-lease-${randomId()}:`, 1);
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Two replicas (two connections, two job layers) on one Redis prefix and one Slack; 20 jobs
 * started alternately on each, naming skipped through either; waits up to `waitMs` for all
 * (or until the calls so far are `enough`).
 */
async function twentyJobsOnTwoReplicas(
  w: World,
  options: {
    leases: boolean;
    waitMs: number;
    /** Stops waiting early once the calls so far satisfy it. */
    enough?: (log: CallRecord[]) => boolean;
  },
) {
  const keyPrefix = `${RUN_PREFIX}-${randomId()}`;
  // Slack is one: both replicas post into the same threads and read them back.
  const slack = new RecordingGateway({ sourcePath });
  const log: CallRecord[] = [];
  const replicas = await Promise.all(
    ["A", "B"].map(async (name) => {
      // Redis's 2 s answer bound is the product's; a starved test process misses it.
      const store = await openStore(redisUrl(), { keyPrefix, timeoutMs: 10_000 });
      w.defer(() => store.close());
      const jobs = testJobs({
        store: options.leases ? store : withoutLeases(store),
        client: instrumentPort(client(w.emulator), name, log, w.emulator),
        gateway: instrumentGateway(slack, name, log),
        tempDir: join(temp.dir, keyPrefix),
        // Short enough that the control, whose replicas ignore leases, sees a claimed job due
        // again (a claim moves it a lease later in the queue) within its wait.
        overrides: { runner: { leaseTtlMs: 3000, queueCheckMs: 50, statusThrottleMs: 0 } },
      });
      await jobs.runner.start();
      w.defer(() => jobs.runner.stop(2000));
      return jobs;
    }),
  );
  const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];

  const markers = Array.from({ length: 20 }, (_, i) => `rep-${i}-${randomId()}`);
  const ids = await Promise.all(
    markers.map(async (marker, i) => {
      const result = await (i % 2 === 0 ? a : b).service.start({
        origin: origin(),
        source: source({ fileId: `F${marker}`, filename: `${marker}.m4a` }),
        options: { contextText: marker },
      });
      if (result.status !== "created") throw new Error(`not created: ${result.status}`);
      return result.job.id;
    }),
  );

  // Skip naming through either replica as the jobs ask for names, until all are final.
  const skipped = new Set<string>();
  const read = async () => {
    const jobs = await Promise.all(ids.map((id) => a.service.get(id)));
    for (const [i, job] of jobs.entries()) {
      if (job?.stage === "naming" && job.wakeAt === undefined && !skipped.has(job.id)) {
        skipped.add(job.id);
        void (i % 3 === 0 ? a : b).service.skipNaming(job.id);
      }
    }
    return jobs;
  };
  const final = (jobs: (Job | undefined)[]) =>
    options.enough?.(log) === true ||
    jobs.every((job) => job?.stage === "done" || job?.stage === "failed");
  const finals = await eventually(read, final, { timeoutMs: options.waitMs, orLast: true });
  return { finals, log, slack, markers };
}

describe.skipIf(!HAS_REDIS)("two replicas on one Redis", () => {
  const TWENTY_JOB_KNOBS = { pollsToComplete: 3, noteMinChars: 1500 };
  const ONE_JOB_KNOBS = { pollsToComplete: 2, noteMinChars: 1500 };

  it("drive 20 jobs to done, never running steps of one job at the same time", async ({
    onTestFinished,
  }) => {
    const w = await worldFor(onTestFinished, TWENTY_JOB_KNOBS);
    const { emulator } = w;
    const { finals, log, slack, markers } = await twentyJobsOnTwoReplicas(w, {
      leases: true,
      waitMs: 90_000, // a ceiling for a loaded machine (≈3.5 s when quiet)
    });
    expect(finals.map((job) => job?.stage)).toEqual(markers.map(() => "done"));
    for (const job of finals) if (job) expectOneDelivery(slack, job);
    // One audio and one note task per job.
    for (const marker of markers) {
      const audio = emulator.stats.audioSubmissions.filter((s) => s.filename === `${marker}.m4a`);
      expect(audio).toHaveLength(1);
      expect(emulator.stats.noteSubmissions.filter((s) => s.contextText === marker)).toHaveLength(
        1,
      );
    }
    // Both replicas worked, every call is attributed to a job, and no job was ever in the
    // hands of both at once (jobs do change hands between steps: both sweep the index).
    expect(new Set(log.map((r) => r.runner))).toEqual(new Set(["A", "B"]));
    expect(log.filter((r) => r.job.startsWith("?"))).toEqual([]);
    expect(overlaps(log)).toEqual([]);
    const handedOver = [...Map.groupBy(log, (r) => r.job).values()].filter(
      (records) => new Set(records.map((r) => r.runner)).size > 1,
    );
    expect(handedOver.length).toBeGreaterThan(0);
    // Its wait for the jobs allows 30 s on a loaded machine: the test must allow it too.
  }, 120_000);

  it("(control) the overlap check does catch replicas that ignore leases", async ({
    onTestFinished,
  }) => {
    // Until the first overlap shows (or every job is over, which would fail the check).
    const w = await worldFor(onTestFinished, TWENTY_JOB_KNOBS);
    const { log } = await twentyJobsOnTwoReplicas(w, {
      leases: false,
      waitMs: 15_000,
      enough: (calls) => overlaps(calls).length > 0,
    });
    expect(overlaps(log).length).toBeGreaterThan(0);
  });

  // Side by side, each on its own emulator and key prefix: their time goes to waiting out
  // leases, a stall and a slow download (the twenty-job tests above keep the CPU busy, and
  // run alone).
  // Ceilings for a loaded machine: every wait ends on an event.
  describe("takeover of a dead replica's job", { concurrent: true, timeout: 90_000 }, () => {
    /** Replica B, in this process, on the same Redis and journal (and temp folder) as A. */
    async function replicaB(
      w: World,
      env: WorkerEnv,
      log: CallRecord[],
      tempDir = env.TEMP_DIR,
      watch?: { claimsOf: string; seen: { first?: number; last?: number; given: boolean } },
    ) {
      const store = await openStore(redisUrl(), { keyPrefix: env.KEY_PREFIX, timeoutMs: 10_000 });
      w.defer(() => store.close());
      if (watch !== undefined) watchClaims(store, watch.claimsOf, watch.seen);
      const recording = new RecordingGateway({ sourcePath, journalPath: env.JOURNAL });
      const gateway: SlackPort = {
        ...instrumentGateway(recording, "B", log),
        findDelivered: async (job) => findInJournal(env.JOURNAL, job.id),
      };
      const jobs = testJobs({
        store,
        client: instrumentPort(client(w.emulator), "B", log, w.emulator),
        gateway,
        tempDir,
        // B's own leases are long (a stall past them would run a second attempt beside the
        // first); A's are 1 s (workerEnv), so B takes over soon after A dies.
        overrides: {
          logger: pino({ level: "debug" }, { write: (line: string) => void w.logs.push(line) }),
          runner: { leaseTtlMs: 30_000, queueCheckMs: 100, statusThrottleMs: 0 },
        },
      });
      await jobs.runner.start();
      w.defer(() => jobs.runner.stop(2000));
      return jobs;
    }

    function workerEnv({ emulator }: World, marker: string): WorkerEnv {
      const dir = join(temp.dir, marker);
      return {
        STORE_URL: redisUrl(),
        KEY_PREFIX: `${RUN_PREFIX}-${marker}`,
        NOTE_TAKER_BASE_URL: emulator.baseUrl,
        NOTE_TAKER_API_KEY: emulator.apiKey,
        JOURNAL: join(dir, "journal.jsonl"),
        SOURCE: sourcePath,
        TEMP_DIR: dir,
        LEASE_TTL_MS: "1000",
        QUEUE_CHECK_MS: "100",
      };
    }

    /** Starts the test's job on a replica (its recording named after the marker); its id. */
    async function startMarked(replica: WorkerProcess, marker: string): Promise<string> {
      const started = await replica.start({
        fileId: `F${marker}`,
        filename: `${marker}.m4a`,
        options: { contextText: marker },
      });
      if (started.status !== "created") throw new Error(`not created: ${started.status}`);
      return started.jobId;
    }

    it("B takes over a job A was killed in the middle of, once A's lease lapses", async ({
      onTestFinished,
    }) => {
      const w = await worldFor(onTestFinished, ONE_JOB_KNOBS);
      const { emulator } = w;
      const marker = `takeover-${randomId()}`;
      const env = workerEnv(w, marker);
      const replicaA: WorkerProcess = await spawnWorker({ ...env, DOWNLOAD_DELAY_MS: "5000" });
      w.defer(() => replicaA.kill());
      const id = await startMarked(replicaA, marker);
      await eventually(
        () => replicaA.job(id),
        (job) => job?.stage === "downloading",
        { what: "A to download" },
      );

      // B comes up while A holds the job and must leave it alone. Proven once B has looked
      // at the due queue over two lease times (1 s each: A's lease, renewed, ran out twice
      // in that span had A not been alive) without being given the job.
      const log: CallRecord[] = [];
      const seen: { first?: number; last?: number; given: boolean } = { given: false };
      const b = await replicaB(w, env, log, env.TEMP_DIR, { claimsOf: id, seen });
      await eventually(
        async () => (seen.last ?? 0) - (seen.first ?? Number.POSITIVE_INFINITY),
        (span) => span >= 2_000,
        { what: "B to look at the queue for two lease times" },
      );
      expect(seen.given).toBe(false);
      expect((await b.service.get(id))?.stage).toBe("downloading");
      expect(log).toEqual([]);

      await replicaA.kill();
      const killedAt = performance.now();
      expect(await replicaA.exited).toBe("SIGKILL");

      const naming = await eventually(
        () => b.service.get(id),
        (job) => job?.stage === "naming" && job.wakeAt === undefined,
        { what: "B to take the job to naming", timeoutMs: 30_000 },
      );
      expect(naming?.stage).toBe("naming");
      expect((await b.service.skipNaming(id)).ok).toBe(true);
      const done = await eventually(
        () => b.service.get(id),
        (job) => job?.stage === "done" || job?.stage === "failed",
        { what: "B to finish", timeoutMs: 30_000 },
      );
      expect(done?.stage).toBe("done");

      // B started only after A was dead (A's lease held it off until it lapsed).
      const firstB = Math.min(...log.map((r) => r.start));
      expect(firstB).toBeGreaterThan(killedAt);
      const journal = readJournal(env.JOURNAL);
      const delivered = deliveredOf(journal, id);
      expect(delivered.downloads).toBe(1); // A's download never finished
      expect(delivered.totals).toHaveLength(1);
      expect(delivered.indexes).toEqual([...Array(delivered.totals[0]).keys()]);
      expect(delivered.docx).toHaveLength(1);
      expect(done?.stage === "done" && done.docxFileId).toBe(delivered.docx[0]?.fileId);
      expect(emulator.stats.audioSubmissions).toHaveLength(1);
      expect(emulator.stats.noteSubmissions).toHaveLength(1);
    });

    // Regression: losing the lease once only aborted the step's AbortSignal, which the
    // delivery loop did not look at, and a step's save was unconditional: a replica back from
    // a pause past its lease re-posted the remaining parts and wrote its stale job over its
    // successor's (`done` went back to `delivering`). Every save now renews the lease first
    // (StepContext `holdLease`) and the step stops when it is gone.
    it("a replica frozen past its lease does not deliver again what its successor delivered", async ({
      onTestFinished,
    }) => {
      const w = await worldFor(onTestFinished, ONE_JOB_KNOBS);
      const marker = `stall-${randomId()}`;
      const env = workerEnv(w, marker);
      // A freezes for 3 s (three lease lifetimes) right after posting part 1, before storing
      // the checkpoint: the process is alive, only stopped — a long GC pause, a starved VM.
      const replicaA = await spawnWorker({ ...env, STALL_AT: "part:1", STALL_MS: "3000" });
      w.defer(() => replicaA.kill());
      const id = await startMarked(replicaA, marker);
      await eventually(
        () => replicaA.job(id),
        (job) => job?.stage === "naming",
        { what: "A to ask for names" },
      );
      expect((await replicaA.skip(id)).ok).toBe(true);
      await eventually(
        async () => deliveredOf(readJournal(env.JOURNAL), id).indexes,
        (indexes) => indexes.includes(1),
        { what: "A to freeze after part 1" },
      );
      // B takes over once A's lease lapses, finds parts 0 and 1 in the thread, and finishes.
      const log: CallRecord[] = [];
      const b = await replicaB(w, env, log);
      const done = await eventually(
        () => b.service.get(id),
        (job) => job?.stage === "done" || job?.stage === "failed",
        { what: "B to finish", timeoutMs: 30_000 },
      );
      expect(done?.stage).toBe("done");
      // A wakes up (3 s after it froze) and carries on where it was; let it run out, watching
      // the job record meanwhile: once done, it must stay done.
      const stages = new Set<string>();
      await eventually(
        async () => {
          stages.add((await b.service.get(id))?.stage ?? "gone");
          return (await replicaA.job(id).catch(() => undefined)) !== undefined;
        },
        (awake) => awake,
        { what: "A to wake up and settle" },
      );
      // Its stale step runs out (it meets the lost lease at its next checkpoint); the job
      // record is watched until then.
      await eventually(
        async () => {
          stages.add((await b.service.get(id))?.stage ?? "gone");
          return replicaA.running();
        },
        (running) => running === 0,
        { what: "A's stale step to end" },
      );
      stages.add((await b.service.get(id))?.stage ?? "gone");

      const delivered = deliveredOf(readJournal(env.JOURNAL), id);
      expect(delivered.totals).toHaveLength(1);
      expect(delivered.indexes).toEqual([...Array(delivered.totals[0]).keys()]);
      expect(delivered.docx).toHaveLength(1);
      expect([...stages]).toEqual(["done"]);
    });

    // Regression: the job remembers `docxPath` on the disk of the replica that downloaded it,
    // and later runs once trusted it without looking: a replica taking the job over (or a
    // restart in a fresh container) could not upload a file it did not have, and never
    // fetched the link (good for 24 h) again. The delivering stage now downloads the DOCX
    // again when the file is not on this disk (engine/delivering.ts).
    it("B on another machine (its own temp folder) finishes a job A died delivering", async ({
      onTestFinished,
    }) => {
      const w = await worldFor(onTestFinished, ONE_JOB_KNOBS);
      const marker = `elsewhere-${randomId()}`;
      const env = workerEnv(w, marker);
      // A dies right after posting part 1: it had already downloaded the DOCX to its disk.
      const replicaA = await spawnWorker({ ...env, CRASH_AT: "part:1" });
      w.defer(() => replicaA.kill());
      const id = await startMarked(replicaA, marker);
      await eventually(
        () => replicaA.job(id),
        (job) => job?.stage === "naming",
        { what: "A to ask for names" },
      );
      await replicaA.skip(id);
      expect(await replicaA.exited).toBe("SIGKILL");

      // Replicas do not share disks: A's went with A; B has its own (same store, same Slack).
      await rm(join(env.TEMP_DIR, "jobs"), { recursive: true, force: true });
      const b = await replicaB(w, env, [], join(env.TEMP_DIR, "replica-b"));
      const final = await eventually(
        () => b.service.get(id),
        (job) => job?.stage === "done" || job?.stage === "failed",
        { what: "B to finish", timeoutMs: 30_000 },
      ).catch(() => b.service.get(id));
      const told = `A:\n${replicaA.output()}\nB:\n${w.logs.join("")}`;
      expect({ stage: final?.stage, attempts: final?.attempts }, told).toEqual({
        stage: "done",
        attempts: 0,
      });
      const delivered = deliveredOf(readJournal(env.JOURNAL), id);
      expect(delivered.indexes).toEqual([...Array(delivered.totals[0]).keys()]);
      expect(delivered.docx).toHaveLength(1);
    });
  });
});

/**
 * Records in `seen` the span of time over which `store` claimed from the due queue, and
 * whether any claim gave it `jobId`.
 */
function watchClaims(
  store: Store,
  jobId: string,
  seen: { first?: number; last?: number; given: boolean },
): void {
  const claimDue = store.claimDue.bind(store);
  store.claimDue = async (now, limit, leasePrefix, ttlMs) => {
    const result = await claimDue(now, limit, leasePrefix, ttlMs);
    if (limit > 0) {
      seen.first ??= now;
      seen.last = now;
    }
    if (result.claimed.some((claim) => claim.jobId === jobId)) seen.given = true;
    return result;
  };
}
