import type { NoteTakerPort } from "../../src/jobs/index.ts";
import { fastRetryPolicy, NoteTakerClient } from "../../src/notetaker/index.ts";
import { openStore } from "../../src/store/index.ts";
import { createEmulator } from "../emulator/create-emulator.ts";
import type { ProgressForm } from "../emulator/knobs.ts";
import { recordingBytes } from "../fakes/recording-bytes.ts";
import { RecordingGateway } from "../fakes/recording-gateway.ts";
import { eventually } from "../helpers/eventually.ts";
import { origin, source, testJobs } from "../helpers/jobs-kit.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import {
  type ScheduleKind,
  SHAPE_NAMES,
  type Shape,
  type SimBounds,
  simSchedule,
  simTasks,
  simulate,
} from "./poll-lag-sim.ts";
import type { RunFacts } from "./report.ts";
import { median, percentile, round } from "./support.ts";

/**
 * Issue 27: how late the bot notices that a Note Service task ended, under the guide's
 * schedule (2 s doubling to 15 s, ±10 %) and under the progress-led one, side by side in one
 * run. Simulated tasks (virtual time, seeded) of every progress shape, then a small sample of
 * real jobs against the emulator in real time, with the bounds scaled down tenfold.
 */

export const LAG_TARGETS = { medianS: 3, p95S: 8 };
export const GUIDE_BOUNDS: SimBounds = { initialMs: 2000, maxMs: 15_000, jitter: 0.1 };
/** The E2E sample's bounds and task lengths: a tenth of the real ones. */
export const E2E_SCALE = 10;
const E2E_FORMS: ProgressForm[] = ["fraction", "percent", "string", "absent"];
const E2E_DURATIONS_MS = [3_000, 6_000];
const KINDS: ScheduleKind[] = ["guide", "progress"];

export interface LagFigures {
  medianS: number;
  p95S: number;
  pollsPerTask: number;
  tasks: number;
}

export interface PollLagResult {
  tasksPerShape: number;
  /** Per shape (and per length band), the figures of each schedule. */
  shapes: { shape: Shape; band: string; guide: LagFigures; progress: LagFigures }[];
  e2e: { form: ProgressForm; guide: LagFigures; progress: LagFigures }[];
  e2eJobsPerCell: number;
}

const BANDS = [
  { name: "all (30 s–60 min)", min: 0, max: Number.POSITIVE_INFINITY },
  { name: "30 s–2 min", min: 0, max: 120_000 },
  { name: "2–15 min", min: 120_000, max: 900_000 },
  { name: "15–60 min", min: 900_000, max: Number.POSITIVE_INFINITY },
];

export async function benchPollLag(tasksPerShape: number, e2eJobs: number): Promise<PollLagResult> {
  const shapes: PollLagResult["shapes"] = [];
  SHAPE_NAMES.forEach((shape, s) => {
    const tasks = simTasks(shape, tasksPerShape, 27_000 + s);
    // The same tasks and the same jitter draws for both schedules.
    const runs = KINDS.map((kind) =>
      tasks.map((task, i) => ({
        task,
        ...simulate(task, simSchedule(kind, GUIDE_BOUNDS, 1_000_000 + i), 2_000_000 + i),
      })),
    );
    for (const band of BANDS) {
      const [guide, progress] = runs.map((run) =>
        figures(run.filter((o) => o.task.durationMs >= band.min && o.task.durationMs < band.max)),
      );
      if (guide !== undefined && progress !== undefined) {
        shapes.push({ shape, band: band.name, guide, progress });
      }
    }
  });
  return { tasksPerShape, shapes, e2e: await e2eSample(e2eJobs), e2eJobsPerCell: e2eJobs };
}

function figures(outcomes: readonly { lagMs: number; polls: number }[]): LagFigures {
  const lags = outcomes.map((o) => o.lagMs / 1000);
  const polls = outcomes.reduce((sum, o) => sum + o.polls, 0);
  return {
    medianS: round(median(lags), 1),
    p95S: round(percentile(lags, 95), 1),
    pollsPerTask: round(polls / Math.max(1, outcomes.length), 1),
    tasks: outcomes.length,
  };
}

/**
 * Real jobs against in-process emulators (one per progress form), the job layer's own runner
 * and transcribing step: `jobs` jobs per schedule for each form and task length, at once.
 * A task ends `audioDurationMs` after the emulator took it; the bot sees it at the poll that
 * answers "completed".
 */
async function e2eSample(jobs: number): Promise<PollLagResult["e2e"]> {
  const temp = await makeTempDir("mn-bench-lag-");
  const sourcePath = await temp.file("rec.m4a", recordingBytes("rec.m4a"));
  const results = new Map<string, { lagMs: number; polls: number }[]>();
  const emulators = await Promise.all(
    E2E_FORMS.map((progressForm) =>
      createEmulator({ knobs: { progressForm, pollsToComplete: 1 } }),
    ),
  );
  try {
    for (const durationMs of E2E_DURATIONS_MS) {
      await Promise.all(
        E2E_FORMS.flatMap((form, f) =>
          KINDS.map(async (kind) => {
            const emulator = emulators[f];
            if (emulator === undefined) return;
            emulator.knobs.audioDurationMs = durationMs;
            const outcomes = await runJobs(emulator, kind, jobs, durationMs, sourcePath, temp.dir);
            const key = `${form}:${kind}`;
            results.set(key, [...(results.get(key) ?? []), ...outcomes]);
          }),
        ),
      );
    }
  } finally {
    await Promise.all(emulators.map((e) => e.close()));
    await temp.cleanup();
  }
  return E2E_FORMS.map((form) => ({
    form,
    guide: figures(results.get(`${form}:guide`) ?? []),
    progress: figures(results.get(`${form}:progress`) ?? []),
  }));
}

async function runJobs(
  emulator: Awaited<ReturnType<typeof createEmulator>>,
  kind: ScheduleKind,
  count: number,
  durationMs: number,
  sourcePath: string,
  dir: string,
): Promise<{ lagMs: number; polls: number }[]> {
  const store = await openStore("memory://");
  const client = new TimedClient(
    new NoteTakerClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKey,
      retryPolicy: fastRetryPolicy,
    }),
  );
  const bounds = {
    initialMs: GUIDE_BOUNDS.initialMs / E2E_SCALE,
    maxMs: GUIDE_BOUNDS.maxMs / E2E_SCALE,
    jitter: GUIDE_BOUNDS.jitter,
  };
  const jobs = testJobs({
    store,
    client,
    gateway: new RecordingGateway({ sourcePath }),
    tempDir: `${dir}/${kind}-${Math.random().toString(36).slice(2)}`,
    overrides: {
      schedule: simSchedule(kind, bounds, Date.now()),
      admission: { perUser: count, perChannel: count, total: count },
    },
  });
  await jobs.runner.start();
  try {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const started = await jobs.service.start({
        origin: origin({ userId: `U${i}`, channelId: `C${i}` }),
        source: source(),
        options: {},
      });
      if (started.status === "created") ids.push(started.job.id);
    }
    const named = async (id: string) => (await jobs.service.get(id))?.stage === "naming";
    await eventually(
      async () => (await Promise.all(ids.map(named))).every(Boolean),
      (all) => all,
      { timeoutMs: durationMs * 3 + 30_000, intervalMs: 100, what: "every job in naming" },
    );
    return client.outcomes(durationMs);
  } finally {
    await jobs.runner.stop(1000);
    await store.close();
  }
}

/** The client, timing each audio task: when it was taken, and the poll that saw it done. */
class TimedClient implements NoteTakerPort {
  readonly #tasks = new Map<string, { takenAt: number; polls: number; doneAt?: number }>();
  readonly #client: NoteTakerClient;

  constructor(client: NoteTakerClient) {
    this.#client = client;
  }

  outcomes(durationMs: number): { lagMs: number; polls: number }[] {
    return [...this.#tasks.values()].flatMap((t) =>
      t.doneAt === undefined ? [] : [{ lagMs: t.doneAt - t.takenAt - durationMs, polls: t.polls }],
    );
  }

  #taken = async (taskId: Promise<string>) => {
    const id = await taskId;
    // The emulator took it at most a request's time before: the lag is, if anything, low.
    this.#tasks.set(id, { takenAt: Date.now(), polls: 0 });
    return id;
  };

  submitAudio: NoteTakerPort["submitAudio"] = (input, signal) =>
    this.#taken(this.#client.submitAudio(input, signal));
  relayAudio: NoteTakerPort["relayAudio"] = (input, signal) =>
    this.#taken(this.#client.relayAudio(input, signal));
  getAudioTask: NoteTakerPort["getAudioTask"] = async (taskId, signal) => {
    const task = await this.#client.getAudioTask(taskId, signal);
    const timed = this.#tasks.get(taskId);
    if (timed !== undefined && timed.doneAt === undefined) {
      timed.polls += 1;
      if (task.status === "completed") timed.doneAt = Date.now();
    }
    return task;
  };
  fetchDialog: NoteTakerPort["fetchDialog"] = (url, signal) =>
    this.#client.fetchDialog(url, signal);
  submitDialog: NoteTakerPort["submitDialog"] = (input, signal) =>
    this.#client.submitDialog(input, signal);
  getNoteTask: NoteTakerPort["getNoteTask"] = (taskId, signal) =>
    this.#client.getNoteTask(taskId, signal);
  downloadDocx: NoteTakerPort["downloadDocx"] = (url, path, signal) =>
    this.#client.downloadDocx(url, path, signal);
}

export function renderPollLag(r: PollLagResult, at: RunFacts): string {
  const t = LAG_TARGETS;
  const cell = (f: LagFigures) => `${f.medianS} / ${f.p95S} / ${f.pollsPerTask}`;
  const verdict = (shape: Shape, g: LagFigures, p: LagFigures) => {
    if (shape === "absent" || shape === "erratic") {
      const same =
        Math.abs(p.medianS - g.medianS) <= 0.5 &&
        Math.abs(p.p95S - g.p95S) <= 1 &&
        p.pollsPerTask <= g.pollsPerTask;
      return same ? "same as the guide: met" : "**differs from the guide**";
    }
    const met = p.medianS <= t.medianS && p.p95S <= t.p95S && p.pollsPerTask <= g.pollsPerTask;
    return met ? "met" : "**missed**";
  };
  const all = r.shapes.filter((s) => s.band === BANDS[0]?.name);
  const bands = r.shapes.filter((s) => s.band !== BANDS[0]?.name);
  return [
    "## 10. Noticing a task's end: the guide's schedule and the progress-led one (issue 27)",
    "",
    measuredLine(at),
    "",
    `Lag: from the moment a task ends to the bot's poll that sees it. ${r.tasksPerShape} simulated`,
    "tasks per progress shape (virtual time, seeded PRNG), lengths spread evenly on a log scale",
    'from 30 s to 60 min, reporting `progress` as the emulator can (0.45, 45 or "45%", whole',
    "percentages rounded or cut down); the same tasks and jitter draws under both schedules.",
    "Shapes: linear; front-loaded (√t: half the work in the first quarter of the time);",
    "back-loaded (t²: half in the last 30 %); stalling (still at 50 % from 40 % to 60 % of the",
    "time); absent (no `progress`); erratic (a random reading at each poll).",
    `Target on every shape with progress: median ≤ ${t.medianS} s, p95 ≤ ${t.p95S} s, polls per task ≤ the`,
    "guide's; absent or erratic: the guide's own figures (±0.5 s median, ±1 s p95).",
    "",
    "Each cell: median lag / p95 lag (s) / polls per task.",
    "",
    "| shape | guide's schedule | progress-led | target |",
    "|---|---:|---:|---|",
    ...all.map(
      (s) =>
        `| ${s.shape} | ${cell(s.guide)} | ${cell(s.progress)} | ${verdict(s.shape, s.guide, s.progress)} |`,
    ),
    "",
    "By task length (same cells):",
    "",
    "| shape | length | tasks | guide's schedule | progress-led |",
    "|---|---|---:|---:|---:|",
    ...bands.map(
      (s) =>
        `| ${s.shape} | ${s.band} | ${s.guide.tasks} | ${cell(s.guide)} | ${cell(s.progress)} |`,
    ),
    "",
    `E2E sample, real time: the job layer's runner and transcribing step against the emulator,`,
    `${r.e2eJobsPerCell} jobs per schedule for each \`progressForm\` and each task length`,
    `(${E2E_DURATIONS_MS.map((d) => `${d / 1000} s`).join(" and ")}), all at once. Everything is scaled down ${E2E_SCALE}×: bounds`,
    `${GUIDE_BOUNDS.initialMs / E2E_SCALE} ms doubling to ${GUIDE_BOUNDS.maxMs / E2E_SCALE} ms (±10 %), so the tasks stand for 30 s and 60 s ones;`,
    `lags are in real seconds (×${E2E_SCALE} for the full-scale figure). The emulator's first poll says`,
    "`queued` at 0 % and its progress stops at 95 % until the end.",
    "",
    "| progressForm | guide's schedule | progress-led |",
    "|---|---:|---:|",
    ...r.e2e.map((e) => `| ${e.form} | ${cell(e.guide)} | ${cell(e.progress)} |`),
  ].join("\n");
}

function measuredLine(at: RunFacts): string {
  return `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start.`;
}
