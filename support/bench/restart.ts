import { copyFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { createJobs } from "../../src/jobs/index.ts";
import { createPollSchedule, NoteTakerClient } from "../../src/notetaker/index.ts";
import { openStore } from "../../src/store/index.ts";
import { createFakeSlack } from "../fake-slack/create-fake-slack.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { RecordingGateway } from "../fakes/recording-gateway.ts";
import { origin, source } from "../helpers/jobs-kit.ts";
import { spawnApp } from "../helpers/spawn-app.ts";
import { spawnEmulator } from "../helpers/spawn-emulator.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import {
  benchAppEnv,
  benchFile,
  countTranscribing,
  lastJson,
  median,
  round,
  runChild,
  sleep,
} from "./support.ts";

export interface RestartResult {
  jobs: number;
  runs: number;
  /** The real app (`node src/main.ts`): spawn → "meeting-notes started" (after `runner.start()`). */
  appMs: number;
  appResumed: number;
  /** A process with only the job layer: `process.uptime()` when `runner.start()` returned. */
  jobLayerMs: number;
  /** Where the job-layer process's time went (medians). */
  bootMs: number;
  importMs: number;
  openMs: number;
  startMs: number;
  scheduled: number;
}

interface ChildReport {
  count: number;
  scheduled: number;
  bootMs: number;
  importMs: number;
  openMs: number;
  startMs: number;
  uptimeMs: number;
}

/**
 * Benchmark 4. N jobs are driven to `transcribing` against the emulator (own process, tasks
 * never finish) in a SQLite store; this process lets go of the store and waits until every
 * job is overdue, then fresh processes open a copy of it and schedule every job again: the real app, and a process with only the job layer
 * (which tells start-up, imports, opening the store and `runner.start()` apart). Each is run
 * `runs` times, alternating; medians are reported.
 */
export async function benchRestart(n: number, runs = 5): Promise<RestartResult> {
  const temp = await makeTempDir("mn-bench-restart-");
  const emulator = await spawnEmulator({ EMULATOR_POLLS_TO_COMPLETE: "1000000000" });
  const fake = await createFakeSlack();
  const storeUrl = `sqlite://${temp.dir}/app.sqlite`;
  // Where the app keeps its temp files next to a SQLite store.
  const tempDir = join(temp.dir, "tmp");
  try {
    const recording = await temp.file("recording.m4a", recordingBytes("recording.m4a", 1024));
    const dbPath = join(temp.dir, "app.sqlite");
    await buildActiveJobs(n, storeUrl, tempDir, recording, emulator);
    // Every run starts from the same store, in which every job is overdue: the bot was down
    // for longer than the 15 s poll cap, as across a deploy. (A run polls the overdue jobs
    // and moves their wake-up times on: without the snapshot, runs would differ.)
    const snapshot = join(temp.dir, "snapshot.sqlite");
    await copyFile(dbPath, snapshot);
    await sleep(16_000);
    const restore = async () => {
      await rm(`${dbPath}-wal`, { force: true });
      await rm(`${dbPath}-shm`, { force: true });
      await copyFile(snapshot, dbPath);
    };
    // BENCH_CPU_PROF=DIR: every restarted process writes a CPU profile there.
    const profile: Record<string, string> = process.env.BENCH_CPU_PROF
      ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` }
      : {};
    const app: { ms: number; resumed: number }[] = [];
    const layer: ChildReport[] = [];
    for (let run = 0; run < runs; run++) {
      const runApp = async () => {
        await restore();
        const started = performance.now();
        const proc = await spawnApp({
          ...benchAppEnv(fake, emulator, storeUrl),
          ...profile,
        });
        const ms = performance.now() - started;
        const line = proc.lines.find((l) => l.includes('"msg":"meeting-notes started"')) ?? "";
        const resumed = Number(/"resumed":(\d+)/.exec(line)?.[1] ?? Number.NaN);
        await proc.stop();
        app.push({ ms, resumed });
      };
      const runLayer = async () => {
        await restore();
        const child = await runChild(
          process.execPath,
          [benchFile("./restart-child.ts"), storeUrl, tempDir, emulator.baseUrl, emulator.apiKey],
          profile,
        );
        layer.push(lastJson<ChildReport>(child.stdout));
      };
      if (run % 2 === 0) {
        await runApp();
        await runLayer();
      } else {
        await runLayer();
        await runApp();
      }
    }
    const resumed = app.map((a) => a.resumed);
    if (resumed.some((count) => count !== n) || layer.some((l) => l.count !== n)) {
      throw new Error(
        `not every job was scheduled: app ${resumed.join(",")}, job layer ${layer.map((l) => l.count).join(",")}`,
      );
    }
    const med = (pick: (r: ChildReport) => number) => round(median(layer.map(pick)), 0);
    return {
      jobs: n,
      runs,
      appMs: round(median(app.map((a) => a.ms)), 0),
      appResumed: n,
      jobLayerMs: med((r) => r.uptimeMs),
      bootMs: med((r) => r.bootMs),
      importMs: med((r) => r.importMs),
      openMs: med((r) => r.openMs),
      startMs: med((r) => r.startMs),
      scheduled: Math.min(...layer.map((l) => l.scheduled)),
    };
  } finally {
    await emulator.stop();
    await fake.close();
    await temp.cleanup();
  }
}

/** Drives N jobs through download and upload to `transcribing`, then closes the store. */
async function buildActiveJobs(
  n: number,
  storeUrl: string,
  tempDir: string,
  recording: string,
  emulator: { baseUrl: string; apiKey: string },
): Promise<void> {
  const store = await openStore(storeUrl);
  const gateway = new RecordingGateway({ sourcePath: recording });
  const jobs = createJobs({
    store,
    client: new NoteTakerClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey }),
    gateway,
    schedule: createPollSchedule({ initialMs: 2000, maxMs: 15_000 }),
    logger: pino({ level: "warn" }),
    tempDir,
    retentionMs: 24 * 3600_000,
    // Every job at once: the fair-use limits (3 per person) would keep all but a few queued.
    admission: { perUser: n, perChannel: n, total: n },
  });
  await jobs.runner.start();
  for (let i = 0; i < n; i++) {
    await jobs.service.start({
      origin: origin(),
      source: source({ fileId: `F${i}` }),
      options: {},
    });
  }
  while ((await countTranscribing(jobs.repo)) < n) {
    gateway.records.length = 0;
    await sleep(500);
  }
  await jobs.runner.stop(5000);
  await store.close();
}
