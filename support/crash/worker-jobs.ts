import { setTimeout as sleep } from "node:timers/promises";
import type { SlackPort } from "../../src/jobs/index.ts";
import { createPollSchedule, fastRetryPolicy, NoteTakerClient } from "../../src/notetaker/index.ts";
import { openStore } from "../../src/store/index.ts";
import { type GatewayRecord, RecordingGateway } from "../fakes/recording-gateway.ts";
import { testJobs } from "../helpers/jobs-kit.ts";
import { findInJournal } from "./harness.ts";

export type { GatewayRecord };

type Env = Record<string, string | undefined>;

function required(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value === "") throw new Error(`worker: ${name} is required`);
  return value;
}

/** A non-negative number from `env`, or `fallback` when unset. */
export function envNumber(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`worker: bad ${name}: ${raw}`);
  return value;
}

/**
 * The job layer of a crash-test worker (see `worker.ts` for the environment it reads): the
 * real store, Note Service client and runner over a `RecordingGateway` whose journal stands
 * for the Slack thread. `afterRecord` sees each gateway record once it is in the journal.
 * The runner is not started.
 */
export async function workerJobs(env: Env, afterRecord?: (record: GatewayRecord) => void) {
  const journalPath = required(env, "JOURNAL");
  const recording = new RecordingGateway({
    sourcePath: required(env, "SOURCE"),
    journalPath,
    downloadDelayMs: envNumber(env, "DOWNLOAD_DELAY_MS", 0),
    ...(afterRecord === undefined ? {} : { afterRecord }),
  });
  const partDelayMs = envNumber(env, "PART_DELAY_MS", 0);
  const gateway: SlackPort = {
    showStatus: (job) => recording.showStatus(job),
    downloadSource: (job, dest, signal, limits) =>
      recording.downloadSource(job, dest, signal, limits),
    splitNote: (markdown) => recording.splitNote(markdown),
    postNotePart: async (job, text, index, total) => {
      if (partDelayMs > 0) await sleep(partDelayMs);
      return recording.postNotePart(job, text, index, total);
    },
    uploadDocx: (job, path) => recording.uploadDocx(job, path),
    uploadTranscript: (job, dialog, map) => recording.uploadTranscript(job, dialog, map),
    deleteFile: (job, fileId) => recording.deleteFile(job, fileId),
    createCanvas: (job, markdown) => recording.createCanvas(job, markdown),
    editCanvas: (job, id, markdown) => recording.editCanvas(job, id, markdown),
    shareCanvas: (job, id) => recording.shareCanvas(job, id),
    findCanvas: (job) => recording.findCanvas(job),
    review: recording.review,

    // Reads the thread (the journal) afresh: another process may have posted since we started.
    findDelivered: async (job) => findInJournal(journalPath, job.id),
  };

  const store = await openStore(required(env, "STORE_URL"), {
    keyPrefix: required(env, "KEY_PREFIX"),
  });
  const client = new NoteTakerClient({
    baseUrl: required(env, "NOTE_TAKER_BASE_URL"),
    apiKey: required(env, "NOTE_TAKER_API_KEY"),
    retryPolicy: fastRetryPolicy,
  });
  const jobs = testJobs({
    store,
    client,
    gateway,
    tempDir: required(env, "TEMP_DIR"),
    overrides: {
      // The emulator's tasks last up to 4 s here: polling every 100 ms at most finds their end
      // soon enough without hundreds of polls (and store writes) per task in 18 scenarios.
      schedule: createPollSchedule({ initialMs: 5, maxMs: 100, jitter: 0 }),
      runner: {
        leaseTtlMs: envNumber(env, "LEASE_TTL_MS", 2000),
        queueCheckMs: envNumber(env, "QUEUE_CHECK_MS", 200),
        claimGapMs: 5,
        statusThrottleMs: 0,
      },
    },
  });
  return { jobs, store };
}
