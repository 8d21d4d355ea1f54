import { spawn } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pino } from "pino";
import { createJobs, type Job, type NoteTakerPort } from "../../src/jobs/index.ts";
import { createPollSchedule, NoteTakerClient } from "../../src/notetaker/index.ts";
import { openStore } from "../../src/store/index.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { RecordingGateway } from "../fakes/recording-gateway.ts";
import { origin, source } from "../helpers/jobs-kit.ts";
import { spawnEmulator } from "../helpers/spawn-emulator.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import { startScriptOf } from "./start-script.ts";
import {
  benchFile,
  countTranscribing,
  lastJson,
  MiB,
  percentile,
  round,
  sleep,
} from "./support.ts";

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
  /** What the schedule asks for at its cap: jobs ÷ cap. */
  expectedPollsPerSecond: number;
  /** This process's CPU time over the window, as a share of one core (%). */
  cpuPercent: number;
  pollCapSeconds: number;
  /** Flip → the job's `naming` status update, per job, seconds. */
  noticeP50Seconds: number;
  noticeP99Seconds: number;
  noticeMaxSeconds: number;
  /** Jobs whose update came before the wait gave up (all of them, normally). */
  noticed: number;
  /** Event-loop delay while every task completed at once. */
  noticeLoopP99Ms: number;
  noticeLoopMaxMs: number;
  noticePeakRssMiB: number;
}

const POLL_INITIAL_MS = 2000;
const POLL_MAX_MS = 15_000;
/**
 * The loop-delay histogram times a 10 ms timer: its values include those 10 ms, which are
 * taken off so that the figures are the delay itself (an idle process shows ≈0.1–0.5 ms).
 */
const LOOP_RESOLUTION_MS = 10;
const loopMs = (ns: number) => round(Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS));

/** The fake gateway with the time each job's `naming` update was shown. */
class TimedGateway extends RecordingGateway {
  readonly namingAt = new Map<string, number>();

  override async showStatus(job: Job): Promise<string> {
    const ts = await super.showStatus(job);
    if (job.stage === "naming" && !this.namingAt.has(job.id)) {
      this.namingAt.set(job.id, performance.now());
    }
    // The records would only grow (thousands of progress edits) and be counted as the
    // bot's memory; nothing here reads them.
    this.records.length = 0;
    return ts;
  }
}

/** The real client, with submissions and polls counted in this process. */
function countingClient(client: NoteTakerClient) {
  const counts = { submitted: 0, polls: 0 };
  const port: NoteTakerPort = {
    submitAudio: async (input, signal) => {
      const id = await client.submitAudio(input, signal);
      counts.submitted++;
      return id;
    },
    relayAudio: async (input, signal) => {
      const id = await client.relayAudio(input, signal);
      counts.submitted++;
      return id;
    },
    getAudioTask: (taskId, signal) => {
      counts.polls++;
      return client.getAudioTask(taskId, signal);
    },
    fetchDialog: (url, signal) => client.fetchDialog(url, signal),
    submitDialog: (input, signal) => client.submitDialog(input, signal),
    getNoteTask: (taskId, signal) => client.getNoteTask(taskId, signal),
    downloadDocx: (url, path, signal) => client.downloadDocx(url, path, signal),
  };
  return { port, counts };
}

/**
 * Benchmark 3, in a fresh process (`many-jobs-child.ts`) so that its RSS is the job layer's
 * own and not what the benchmarks before it left in this one. The process runs with the
 * variables and Node options of `npm start` (its V8 flags as arguments of `node`): the job
 * layer's memory and loop delay are those of production's settings.
 */
export async function benchManyJobs(n: number, windowMs = 45_000): Promise<ManyJobsResult> {
  const start = startScriptOf(benchFile("../.."));
  const child = spawn(
    process.execPath,
    [...start.nodeArgs, benchFile("./many-jobs-child.ts"), String(n), String(windowMs)],
    {
      env: { PATH: process.env.PATH ?? "", ...start.env },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`many-jobs child exited with ${code}`);
  return lastJson<ManyJobsResult>(stdout);
}

/**
 * Runs in `many-jobs-child.ts`. N jobs go through the real path (download → upload → transcribing) against
 * an emulator in its own process whose tasks do not finish; once the poll schedule is at its
 * cap, a window measures this process (RSS, event-loop delay, CPU) and the poll rate. Then
 * every task is made to complete at once (`pollsToComplete: 0`) and, per job, the time from
 * that flip to the job's `naming` status update is measured. Production poll schedule
 * (2 s → 15 s) and runner settings, SQLite store.
 */
export async function runManyJobs(n: number, windowMs = 45_000): Promise<ManyJobsResult> {
  const temp = await makeTempDir("mn-bench-");
  const emulator = await spawnEmulator({ EMULATOR_POLLS_TO_COMPLETE: "1000000000" });
  const storeUrl = `sqlite://${temp.dir}/bench.sqlite`;
  const store = await openStore(storeUrl);
  const gateway = new TimedGateway({
    sourcePath: await temp.file("a.mp3", recordingBytes("a.mp3", 1024)),
  });
  const { port: client, counts } = countingClient(
    new NoteTakerClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey }),
  );
  const jobs = createJobs({
    store,
    client,
    gateway,
    schedule: createPollSchedule({ initialMs: POLL_INITIAL_MS, maxMs: POLL_MAX_MS }),
    // Logs go to stderr: stdout carries the result line.
    logger: pino({ level: "warn" }, pino.destination(2)),
    tempDir: `${temp.dir}/jobs`,
    retentionMs: 24 * 3600_000,
    // Every job at once: the fair-use limits (3 per person) would keep all but a few queued.
    admission: { perUser: n, perChannel: n, total: n },
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
    while (counts.submitted < n) await sleep(250);
    while ((await countTranscribing(jobs.repo)) < n) await sleep(250);
    const secondsToTranscribing = (performance.now() - started) / 1000;
    process.stderr.write(
      `many-jobs: ${n} in transcribing after ${round(secondsToTranscribing)} s\n`,
    );

    // Let the schedule reach its steady state (2 + 4 + 8 s, then the 15 s cap).
    await sleep(30_000);
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 250);
    const pollsBefore = counts.polls;
    const cpuBefore = process.cpuUsage();
    loop.enable();
    await sleep(windowMs);
    loop.disable();
    const cpu = process.cpuUsage(cpuBefore);
    const polls = counts.polls - pollsBefore;
    clearInterval(sampler);

    // Notice latency: every task completes at the next poll from now on.
    const noticeLoop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    let noticePeak = 0;
    const noticeSampler = setInterval(() => {
      noticePeak = Math.max(noticePeak, process.memoryUsage.rss());
    }, 250);
    noticeLoop.enable();
    const flippedAt = performance.now();
    await emulator.setKnobs({ pollsToComplete: 0 });
    const giveUpAt = flippedAt + POLL_MAX_MS + 120_000;
    while (gateway.namingAt.size < n && performance.now() < giveUpAt) await sleep(100);
    noticeLoop.disable();
    clearInterval(noticeSampler);
    const notices = [...gateway.namingAt.values()].map((at) => (at - flippedAt) / 1000);

    return {
      jobs: n,
      store: "sqlite",
      secondsToTranscribing: round(secondsToTranscribing),
      windowSeconds: windowMs / 1000,
      rssMiB: round(peakRss / MiB),
      rssGrowthMiB: round((peakRss - rssBefore) / MiB),
      loopDelayP99Ms: loopMs(loop.percentile(99)),
      loopDelayMaxMs: loopMs(loop.max),
      pollsPerSecond: round(polls / (windowMs / 1000)),
      expectedPollsPerSecond: round(n / (POLL_MAX_MS / 1000)),
      cpuPercent: round(((cpu.user + cpu.system) / 1000 / windowMs) * 100, 0),
      pollCapSeconds: POLL_MAX_MS / 1000,
      noticeP50Seconds: round(percentile(notices, 50), 2),
      noticeP99Seconds: round(percentile(notices, 99), 2),
      noticeMaxSeconds: round(Math.max(...notices), 2),
      noticed: notices.length,
      noticeLoopP99Ms: loopMs(noticeLoop.percentile(99)),
      noticeLoopMaxMs: loopMs(noticeLoop.max),
      noticePeakRssMiB: round(noticePeak / MiB),
    };
  } finally {
    await jobs.runner.stop(2000);
    await store.close();
    await emulator.stop();
    await temp.cleanup();
  }
}
