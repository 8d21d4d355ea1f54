import { monitorEventLoopDelay } from "node:perf_hooks";
import { pino } from "pino";
import { createJobs } from "../../src/jobs/index.ts";
import { createPollSchedule, NoteTakerClient } from "../../src/notetaker/index.ts";
import { openStore } from "../../src/store/index.ts";
import { RecordingGateway } from "../fakes/recording-gateway.ts";
import { origin, source } from "../helpers/jobs-kit.ts";
import { spawnEmulator } from "../helpers/spawn-emulator.ts";
import { makeTempDir } from "../helpers/temp-files.ts";

export interface ManyJobsResult {
  jobs: number;
  store: string;
  secondsToTranscribing: number;
  windowSeconds: number;
  rssMiB: number;
  rssGrowthMiB: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  pollsPerSecond: number;
}

const MiB = 1024 * 1024;

/**
 * N jobs go through the real path (download → upload → transcribing) against an emulator
 * in its own process whose tasks never finish; then, over a window, the process's RSS,
 * event-loop delay and the poll rate are measured. Production poll schedule (2 s → 15 s).
 */
export async function benchManyJobs(n: number, windowMs = 45_000): Promise<ManyJobsResult> {
  const temp = await makeTempDir("mn-bench-");
  const emulator = await spawnEmulator({ EMULATOR_POLLS_TO_COMPLETE: "1000000000" });
  const storeUrl = `sqlite://${temp.dir}/bench.sqlite`;
  const store = await openStore(storeUrl);
  const gateway = new RecordingGateway({ sourcePath: await temp.file("a.mp3", "x".repeat(1024)) });
  const client = new NoteTakerClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey });
  const jobs = createJobs({
    store,
    client,
    gateway,
    schedule: createPollSchedule({ initialMs: 2000, maxMs: 15_000 }),
    logger: pino({ level: "warn" }),
    tempDir: `${temp.dir}/jobs`,
    retentionMs: 24 * 3600_000,
  });
  try {
    await jobs.runner.start();
    const rssBefore = process.memoryUsage.rss();
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      await jobs.service.start({
        origin: origin(),
        source: source({ fileId: `F${i}` }),
        options: {},
      });
    }
    const all = () => jobs.repo.listActiveIds();
    for (;;) {
      const ids = await all();
      const stages = await Promise.all(ids.map(async (id) => (await jobs.repo.get(id))?.stage));
      if (stages.filter((s) => s === "transcribing").length === n) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const secondsToTranscribing = (performance.now() - started) / 1000;
    // Let the schedule reach its steady state (15 s cap) before measuring.
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const pollsBefore = (await emulator.stats()).polls.audio;
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 250);
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    clearInterval(sampler);
    loop.disable();
    const polls = (await emulator.stats()).polls.audio - pollsBefore;
    return {
      jobs: n,
      store: "sqlite",
      secondsToTranscribing: round(secondsToTranscribing),
      windowSeconds: windowMs / 1000,
      rssMiB: round(peakRss / MiB),
      rssGrowthMiB: round((peakRss - rssBefore) / MiB),
      loopDelayP99Ms: round(loop.percentile(99) / 1e6),
      loopDelayMaxMs: round(loop.max / 1e6),
      pollsPerSecond: round(polls / (windowMs / 1000)),
    };
  } finally {
    await jobs.runner.stop(2000);
    await store.close();
    await emulator.stop();
    await temp.cleanup();
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
