/**
 * Seeds the fleet benchmark's store with N active jobs, with the repository of the code
 * under test (so the records are written by the code that reads them): their audio and
 * note tasks are first submitted to the emulator, so every poll hits a real task. Writes
 * the manifest (job id, stage, task id) as JSON to MANIFEST and prints a `SeedReport` as
 * its last line. Configured by the environment (see `fleet.ts`):
 *   SRC_ROOT STORE_URL KEY_PREFIX EMULATOR_URL EMULATOR_KEY JOBS MIX MANIFEST TEMP_DIR
 *   WAKE_DELAY_MS [ORIGIN_TEAM ORIGIN_CHANNEL] [TIME_COUNT_ACTIVE=1] [QUEUED_ONCE=1]
 * QUEUED_ONCE=1: the store is left as one a running bot has used, its due queue marked as
 * holding every active job (the repository's own `queueEveryActiveJobOnce`), so a process
 * started over it reads no record to queue them again.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import type { Job } from "../../src/jobs/index.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { RecordingGateway } from "../fakes/recording-gateway.ts";
import {
  epochNow,
  loadCode,
  type ManifestEntry,
  meetingDialog,
  POLL_INITIAL_MS,
  POLL_MAX_MS,
  random,
  type SeedReport,
  type SeedStage,
  stagePlan,
} from "./fleet-common.ts";
import { median, round } from "./support.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`fleet-seed: ${name} is not set`);
  return value;
};

const code = await loadCode(env("SRC_ROOT"));
const n = Number(env("JOBS"));
const mix = env("MIX").split(",").map(Number);
const tempDir = env("TEMP_DIR");
const wakeDelayMs = Number(env("WAKE_DELAY_MS"));
const store = await code.store.openStore(env("STORE_URL"), { keyPrefix: env("KEY_PREFIX") });
const client = new code.notetaker.NoteTakerClient({
  baseUrl: env("EMULATOR_URL"),
  apiKey: env("EMULATOR_KEY"),
});
const { repo } = code.jobs.createJobs({
  store,
  client,
  gateway: new RecordingGateway({ sourcePath: "/dev/null" }),
  schedule: code.notetaker.createPollSchedule({ initialMs: POLL_INITIAL_MS, maxMs: POLL_MAX_MS }),
  logger: pino({ level: "warn" }, pino.destination(2)),
  tempDir: join(tempDir, "jobs"),
  retentionMs: 24 * 3600_000,
  // The fair-use record is one key under one global lease: lifted, as in every process.
  admission: { perUser: n, perChannel: n, total: n },
});

const plan = stagePlan(n, mix);
const count = (stage: SeedStage) => plan.filter((s) => s === stage).length;
const next = random(20_261_123);

// 1. The remote tasks. The note tasks get a short dialog: the emulator keeps what it is
// sent, and only the task id matters to a poll; the records hold the full dialogs.
const submitStarted = performance.now();
const audioPath = join(tempDir, "recording.m4a");
writeFileSync(audioPath, recordingBytes("recording.m4a", 2048));
const shortDialog = meetingDialog(0.01, 1);
const audioTasks = await inParallel(count("transcribing"), 16, () =>
  client.submitAudio({ path: audioPath, filename: "weekly-sync.m4a" }),
);
const noteTasks = await inParallel(count("writing"), 16, () =>
  client.submitDialog({ dialog: shortDialog }),
);
const submitSeconds = (performance.now() - submitStarted) / 1000;

// 2. A dozen meetings of 1 to 3 hours, shared out among the jobs that hold a dialog.
const holders = count("naming") + count("writing");
const meetingCount = Math.min(12, Math.max(1, holders));
const meetings = Array.from({ length: meetingCount }, (_, k) => {
  const hours = meetingCount === 1 ? 2 : 1 + (2 * k) / (meetingCount - 1);
  const dialog = meetingDialog(hours, 1000 + k);
  const speakers = speakersWithQuotes(code.jobs.summarizeSpeakers(dialog) as unknown);
  return { dialog, speakers, bytes: Buffer.byteLength(JSON.stringify(dialog)) };
});
const NAMES = ["Lan", "Minh", "Hoa", "Tuấn", "Mai", "Dũng"];

type HeardSpeaker = { speakerId: string; quotes: unknown[] };
/**
 * The speakers as the older code keeps them, each with its quotes: the code under test
 * reads them through its own `storedJobSchema`, which moves the quotes where it keeps them.
 */
function speakersWithQuotes(summary: unknown): HeardSpeaker[] {
  if (Array.isArray(summary)) return summary as HeardSpeaker[];
  const { speakers, quotes } = summary as {
    speakers: { speakerId: string }[];
    quotes: Record<string, unknown[]>;
  };
  return speakers.map((s) => ({ ...s, quotes: quotes[s.speakerId] ?? [] }));
}

const teamId = process.env.ORIGIN_TEAM || "T0FLEET";
const fixedChannel = process.env.ORIGIN_CHANNEL;
let audioIndex = 0;
let noteIndex = 0;
let dialogIndex = 0;
const manifest: ManifestEntry[] = [];
let lastWakeAt = 0;
const dialogSizes: number[] = [];

/** The record of job `i`, as the stage it is seeded in stores it. */
function build(i: number, stage: SeedStage): { job: Job; entry: ManifestEntry } {
  const now = Date.now();
  const id = randomUUID();
  // Each poll is due at its own point of the 15 s cycle, after the replicas are up: the
  // polls of the measuring window are even, not in waves.
  const wakeAt = Math.round(now + wakeDelayMs + next() * POLL_MAX_MS);
  const common = {
    id,
    createdAt: now - 3_600_000,
    updatedAt: now,
    attempts: 0,
    origin: {
      teamId,
      channelId: fixedChannel ?? `C${String(i).padStart(7, "0")}`,
      threadTs: `1700000000.${String(i).padStart(6, "0")}`,
      userId: `U${String(i).padStart(7, "0")}`,
      locale: "en-US",
    },
    source: {
      fileId: `F${String(i).padStart(7, "0")}`,
      filename: "weekly-sync.m4a",
      size: 48_000_000,
      downloadUrl: `https://files.slack.com/files-pri/${teamId}-F${i}/download/weekly-sync.m4a`,
      mimetype: "audio/mp4",
    },
    options: {},
    // A status message already in the thread, unless the real app (fake Slack) posts it.
    ...(fixedChannel === undefined ? { statusTs: `1700000001.${String(i).padStart(6, "0")}` } : {}),
  };
  // Polled for a while: the schedule is at its 15 s cap.
  const polling = (taskId: string | undefined) => ({
    ...(taskId === undefined ? {} : { taskId }),
    submittedAt: now - 600_000,
    pollAttempt: 20 + Math.floor(next() * 20),
  });
  if (stage === "transcribing") {
    const taskId = audioTasks[audioIndex++];
    lastWakeAt = Math.max(lastWakeAt, wakeAt);
    return {
      job: {
        ...common,
        stage,
        stageStartedAt: now - 600_000,
        wakeAt,
        audio: { ...polling(taskId), progress: { fraction: 0.4, label: "processing" } },
      } as Job,
      entry: { id, stage, ...(taskId === undefined ? {} : { taskId }) },
    };
  }
  const meeting = meetings[dialogIndex++ % meetings.length];
  if (meeting === undefined) throw new Error("no meeting dialog");
  dialogSizes.push(meeting.bytes);
  if (stage === "naming") {
    return {
      job: {
        ...common,
        stage,
        stageStartedAt: now - 300_000,
        dialog: meeting.dialog,
        speakers: meeting.speakers,
      } as unknown as Job,
      entry: { id, stage },
    };
  }
  const taskId = noteTasks[noteIndex++];
  lastWakeAt = Math.max(lastWakeAt, wakeAt);
  return {
    job: {
      ...common,
      stage,
      stageStartedAt: now - 300_000,
      wakeAt,
      note: {
        dialog: meeting.dialog,
        speakers: meeting.speakers,
        speakerMap: meeting.speakers.map((s, k) => ({
          speaker_id: s.speakerId,
          name: NAMES[k % NAMES.length] ?? "Lan",
        })),
        contextText: "Weekly product sync: release schedule, research budget, hiring.",
      },
      task: { ...polling(taskId), progress: null },
      relinks: 0,
      delivery: 1,
    } as unknown as Job,
    entry: { id, stage, ...(taskId === undefined ? {} : { taskId }) },
  };
}

// 3. The records, through the repository (record, active index, channel and user index).
const checked = new Set<string>();
const writeStarted = performance.now();
// SQLite runs in this process's thread: more writes in flight only queue.
const concurrency = store.kind === "redis" ? 32 : 1;
let written = 0;
await inParallel(n, concurrency, async () => {
  const i = written++;
  const { job, entry } = build(i, plan[i] ?? "transcribing");
  // The first record of each stage is checked against the code's own schema: a record
  // shape the code under test no longer reads should stop the run here, not mid-window.
  if (!checked.has(entry.stage)) {
    checked.add(entry.stage);
    const parsed = code.jobs.storedJobSchema.safeParse(job);
    if (!parsed.success) {
      throw new Error(
        `fleet-seed: a ${entry.stage} record does not fit ${code.root}/src/jobs/model/job.ts: ${parsed.error.message.slice(0, 600)}`,
      );
    }
  }
  // Written as each code's own repository writes a record read back from an earlier
  // version: the dialog inline (baseline) or moved out to a blob (current).
  await repo.create(code.jobs.storedJobSchema.parse(job));
  manifest.push(entry);
});
const writeSeconds = (performance.now() - writeStarted) / 1000;
// The records were queued as they were written; this reads them once more and sets the mark.
if (process.env.QUEUED_ONCE === "1") await repo.queueEveryActiveJobOnce();
writeFileSync(env("MANIFEST"), JSON.stringify(manifest));

let countActiveMs: SeedReport["countActiveMs"];
if (process.env.TIME_COUNT_ACTIVE === "1") {
  const times: number[] = [];
  for (let k = 0; k < 20; k++) {
    const t = performance.now();
    await repo.countActiveByStage();
    times.push(performance.now() - t);
  }
  countActiveMs = { median: round(median(times), 2), max: round(Math.max(...times), 2) };
}
await store.close();

const kib = (bytes: number) => round(bytes / 1024, 0);
const report: SeedReport = {
  jobs: n,
  byStage: {
    transcribing: count("transcribing"),
    naming: count("naming"),
    writing: count("writing"),
  },
  submitSeconds: round(submitSeconds),
  writeSeconds: round(writeSeconds),
  dialogKiB: {
    min: kib(dialogSizes.length > 0 ? Math.min(...dialogSizes) : 0),
    median: kib(dialogSizes.length > 0 ? median(dialogSizes) : 0),
    max: kib(dialogSizes.length > 0 ? Math.max(...dialogSizes) : 0),
  },
  lastWakeAt: lastWakeAt || epochNow(),
  ...(countActiveMs === undefined ? {} : { countActiveMs }),
};
process.stdout.write(`${JSON.stringify(report)}\n`);

/** Runs `work` `total` times, at most `limit` at once; resolves to the results in order. */
async function inParallel<T>(total: number, limit: number, work: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let started = 0;
  const lane = async () => {
    while (started < total) {
      const index = started++;
      results[index] = await work();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, total) }, lane));
  return results;
}
