/**
 * One replica of the fleet benchmark: the job layer of the checkout at SRC_ROOT (its
 * runner, repository, store and Note Service client) against the shared store and the
 * emulator, with a fake Slack gateway that notes when each job's status shows a new stage.
 * Driven by `fleet.ts` over IPC (`FleetCommand` in, `FleetReply` out). Configured by the
 * environment: SRC_ROOT STORE_URL KEY_PREFIX EMULATOR_URL EMULATOR_KEY MANIFEST TEMP_DIR
 * LEASE_MS ADMISSION_N.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pino } from "pino";
import type { Job, NoteTakerPort } from "../../src/jobs/index.ts";
import type { Store } from "../../src/store/index.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { RecordingGateway } from "../fakes/recording-gateway.ts";
import {
  epochNow,
  loadCode,
  type ManifestEntry,
  POLL_INITIAL_MS,
  POLL_MAX_MS,
} from "./fleet-common.ts";

/** What `fleet.ts` asks; each is answered by one `FleetReply` with the same `id`. */
export type FleetCommand =
  | { id: number; cmd: "window-start" | "window-end" | "notice-start" | "notice-end" }
  | { id: number; cmd: "snapshot" | "stop" };

/** The figures of one replica over a phase (the measuring window, or the notice). */
export interface PhaseFigures {
  seconds: number;
  cpuSeconds: number;
  /** Sampled every 100 ms over the phase. */
  peakRssMiB: number;
  /** The kernel's high-water mark since the process started (start-up included). */
  maxRssMiB: number;
  /** Where the RSS is, sampled with it: V8's heap (total, used) and Buffers outside it. */
  peakHeapTotalMiB: number;
  peakHeapUsedMiB: number;
  peakExternalMiB: number;
  /** The heap still in use after a full GC at the phase's end (with `--expose-gc` only). */
  liveHeapMiB?: number;
  loopP99Ms: number;
  loopMaxMs: number;
  polls: number;
  /** Store calls by method over the phase (the wrapper below counts them). */
  storeCalls: Record<string, number>;
  /** `acquireLease` calls that found the lease taken. */
  leaseMisses: number;
  runner: Record<string, number>;
}

/** A job's status shown in a new stage: [job id, stage, epoch ms, ms since its task was seen done]. */
export type Shown = [string, string, number, number | null];

export type FleetReply =
  | { type: "ready"; startMs: number; count: number; uptimeMs: number }
  | { type: "reply"; id: number; figures?: PhaseFigures; polls?: [string, number][] }
  | { type: "shown"; items: Shown[] }
  | { type: "fatal"; message: string };

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`fleet-replica: ${name} is not set`);
  return value;
};
const send = (message: FleetReply) => process.send?.(message);
process.on("uncaughtException", (error) => {
  send({ type: "fatal", message: String(error?.stack ?? error) });
  process.exit(1);
});

const code = await loadCode(env("SRC_ROOT"));
const manifest = JSON.parse(readFileSync(env("MANIFEST"), "utf8")) as ManifestEntry[];
const seededStage = new Map(manifest.map((e) => [e.id, e.stage]));
const jobOfTask = new Map(manifest.flatMap((e) => (e.taskId ? [[e.taskId, e.id] as const] : [])));
const tempDir = env("TEMP_DIR");
const leaseTtlMs = Number(env("LEASE_MS"));
const admissionN = Number(env("ADMISSION_N"));

// -- The store, with every call counted by method (lease misses apart).
const calls = new Map<string, number>();
let leaseMisses = 0;
function counted(store: Store): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        calls.set(property, (calls.get(property) ?? 0) + 1);
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (property === "acquireLease" && result instanceof Promise) {
          return result.then((token: unknown) => {
            if (token === undefined) leaseMisses++;
            return token;
          });
        }
        return result;
      };
    },
  });
}
const rawStore = await code.store.openStore(env("STORE_URL"), { keyPrefix: env("KEY_PREFIX") });
const store = counted(rawStore);

// -- The Note Service client, with polls counted and each task's last poll and end noted.
const client = new code.notetaker.NoteTakerClient({
  baseUrl: env("EMULATOR_URL"),
  apiKey: env("EMULATOR_KEY"),
});
let polls = 0;
const lastPollAt = new Map<string, number>();
/** When this replica learned that a job's task was done (its dialog fetched, for audio). */
const doneAt = new Map<string, number>();
const port: NoteTakerPort = {
  submitAudio: (input, signal) => client.submitAudio(input, signal),
  relayAudio: (input, signal) => client.relayAudio(input, signal),
  submitDialog: (input, signal) => client.submitDialog(input, signal),
  getAudioTask: async (taskId, signal) => {
    polls++;
    lastPollAt.set(taskId, epochNow());
    return client.getAudioTask(taskId, signal);
  },
  getNoteTask: async (taskId, signal) => {
    polls++;
    lastPollAt.set(taskId, epochNow());
    const task = await client.getNoteTask(taskId, signal);
    const jobId = jobOfTask.get(taskId);
    if (task.status !== "running" && jobId !== undefined) doneAt.set(jobId, epochNow());
    return task;
  },
  fetchDialog: async (url, signal) => {
    const dialog = await client.fetchDialog(url, signal);
    const taskId = /\/r\/dialog\/([^/?]+)/.exec(url)?.[1];
    const jobId = taskId === undefined ? undefined : jobOfTask.get(decodeURIComponent(taskId));
    if (jobId !== undefined) doneAt.set(jobId, epochNow());
    return dialog;
  },
  downloadDocx: (url, path, signal) => client.downloadDocx(url, path, signal),
};

// -- The fake Slack gateway: notes the first time a job is shown in a stage it was not
// seeded in (transcribing → naming, writing → delivering; failed, should that happen).
let pending: Shown[] = [];
const shown = new Set<string>();
class ShowingGateway extends RecordingGateway {
  override async showStatus(job: Job): Promise<string> {
    const ts = await super.showStatus(job);
    const seeded = seededStage.get(job.id);
    if (seeded !== undefined && job.stage !== seeded && !shown.has(job.id)) {
      shown.add(job.id);
      const at = epochNow();
      const done = doneAt.get(job.id);
      pending.push([job.id, job.stage, at, done === undefined ? null : at - done]);
    }
    // Thousands of progress edits would only grow the records; nothing here reads them.
    this.records.length = 0;
    return ts;
  }
}
const sourcePath = join(tempDir, "source.m4a");
writeFileSync(sourcePath, recordingBytes("source.m4a", 2048));
const flush = setInterval(() => {
  if (pending.length === 0) return;
  send({ type: "shown", items: pending });
  pending = [];
}, 200);

const jobs = code.jobs.createJobs({
  store,
  client: port,
  gateway: new ShowingGateway({ sourcePath }),
  schedule: code.notetaker.createPollSchedule({ initialMs: POLL_INITIAL_MS, maxMs: POLL_MAX_MS }),
  // Warnings and errors to stderr (the parent counts them by message); stdout stays quiet.
  logger: pino({ level: process.env.LOG_LEVEL || "warn" }, pino.destination(2)),
  tempDir: join(tempDir, "jobs"),
  retentionMs: 24 * 3600_000,
  // The fair-use record is one key under one global lease: lifted, as in every process.
  admission: { perUser: admissionN, perChannel: admissionN, total: admissionN },
  runner: { leaseTtlMs },
});

// -- Phases: CPU, RSS, loop delay, polls and store calls from `*-start` to `*-end`.
const MiB = 1024 * 1024;
/** The histogram times a 10 ms timer: its values include those 10 ms, taken off here. */
const LOOP_RESOLUTION_MS = 10;
const loopMs = (ns: number) => Math.round(Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS) * 10) / 10;
let peakRss = 0;
const peakHeap = { total: 0, used: 0, external: 0 };
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  const { heapTotal, heapUsed, external } = process.memoryUsage();
  peakHeap.total = Math.max(peakHeap.total, heapTotal);
  peakHeap.used = Math.max(peakHeap.used, heapUsed);
  peakHeap.external = Math.max(peakHeap.external, external);
}, 100).unref();
let phase:
  | {
      started: number;
      cpu: NodeJS.CpuUsage;
      loop: ReturnType<typeof monitorEventLoopDelay>;
      polls: number;
      calls: Map<string, number>;
      leaseMisses: number;
    }
  | undefined;

function startPhase(): void {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  peakRss = process.memoryUsage.rss();
  Object.assign(peakHeap, { total: 0, used: 0, external: 0 });
  phase = {
    started: performance.now(),
    cpu: process.cpuUsage(),
    loop,
    polls,
    calls: new Map(calls),
    leaseMisses,
  };
}

function endPhase(): PhaseFigures {
  if (phase === undefined) throw new Error("no phase under way");
  const { loop } = phase;
  loop.disable();
  const cpu = process.cpuUsage(phase.cpu);
  const storeCalls: Record<string, number> = {};
  for (const [name, total] of calls) {
    const delta = total - (phase.calls.get(name) ?? 0);
    if (delta > 0) storeCalls[name] = delta;
  }
  const figures: PhaseFigures = {
    seconds: (performance.now() - phase.started) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMiB: Math.round(Math.max(peakRss, process.memoryUsage.rss()) / MiB),
    maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    peakHeapTotalMiB: Math.round(peakHeap.total / MiB),
    peakHeapUsedMiB: Math.round(peakHeap.used / MiB),
    peakExternalMiB: Math.round(peakHeap.external / MiB),
    loopP99Ms: loopMs(loop.percentile(99)),
    loopMaxMs: loopMs(loop.max),
    polls: polls - phase.polls,
    storeCalls,
    leaseMisses: leaseMisses - phase.leaseMisses,
    runner: { ...jobs.runner.stats() },
  };
  const { gc } = globalThis as { gc?: () => void };
  if (gc !== undefined) {
    gc();
    figures.liveHeapMiB = Math.round(process.memoryUsage().heapUsed / MiB);
  }
  phase = undefined;
  return figures;
}

process.on("message", (message: FleetCommand) => {
  const reply = (extra: Omit<Extract<FleetReply, { type: "reply" }>, "type" | "id"> = {}) =>
    send({ type: "reply", id: message.id, ...extra });
  switch (message.cmd) {
    case "window-start":
    case "notice-start":
      startPhase();
      reply();
      return;
    case "window-end":
    case "notice-end":
      reply({ figures: endPhase() });
      return;
    case "snapshot":
      reply({ polls: [...lastPollAt] });
      return;
    case "stop":
      clearInterval(flush);
      jobs.runner
        .stop(2000)
        .then(() => rawStore.close())
        .finally(() => {
          reply();
          process.disconnect?.();
          setTimeout(() => process.exit(0), 50);
        });
      return;
  }
});

const started = performance.now();
const count = await jobs.runner.start();
send({
  type: "ready",
  startMs: performance.now() - started,
  count,
  uptimeMs: process.uptime() * 1000,
});
