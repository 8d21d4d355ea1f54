import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createJobs, type Job, storedJobSchema } from "../../src/jobs/index.ts";
import { createPollSchedule } from "../../src/notetaker/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { StoreFault } from "../../support/helpers/failing-store.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/** Overdue jobs a restart finds, all polling a Note Service task at the 15 s cap. */
const JOBS = 300;
const SPREAD_MS = 15_000;
/** The queue gives out JOBS / 15 s a second; a claim batch may straddle a second's edge. */
const BUDGET_PER_SECOND = Math.ceil(JOBS / (SPREAD_MS / 1000)) + 1;
/**
 * Behind the spread, the runner catches up a quarter faster than it, no more (and a fifth
 * of a second's worth kept from the second before).
 */
const CATCH_UP_PER_SECOND = Math.ceil(((1.25 * JOBS) / (SPREAD_MS / 1000)) * 1.2) + 1;

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let client: ScriptedNoteTaker;
let gateway: RecordingGateway;

beforeEach(async () => {
  temp = await makeTempDir();
  vi.useFakeTimers({
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
  });
  vi.setSystemTime(new Date("2026-11-21T09:00:00Z"));
  client = new ScriptedNoteTaker();
  // The tasks run on: every poll finds them running, and the next one is a cap away.
  client.audioScript = [{ status: "running", rawStatus: "processing", progress: null }];
  gateway = new RecordingGateway({ sourcePath: "/dev/null" });
});
afterEach(async () => {
  await store.close();
  vi.useRealTimers();
  await temp.cleanup();
});

function jobsOver(s: Store, restartSpreadMs?: number, capMs = 15_000) {
  return createJobs({
    store: s,
    client,
    gateway,
    schedule: createPollSchedule({ initialMs: 2000, maxMs: capMs, jitter: 0 }),
    logger: pino({ level: "silent" }),
    tempDir: `${temp.dir}/jobs`,
    retentionMs: 30 * 24 * 3600_000,
    ...(restartSpreadMs === undefined ? {} : { runner: { restartSpreadMs } }),
  });
}

/** What the store of a bot that was down for a minute holds: JOBS polls, all overdue. */
async function seedOverdue(s: Store): Promise<string[]> {
  const { repo } = jobsOver(s);
  const now = s.now();
  const ids: string[] = [];
  for (let i = 0; i < JOBS; i++) {
    const id = `job-${String(i).padStart(4, "0")}`;
    const job = {
      id,
      createdAt: now - 3_600_000,
      updatedAt: now - 60_000,
      stageStartedAt: now - 600_000,
      attempts: 0,
      origin: origin(),
      source: source({ fileId: `F${i}` }),
      options: {},
      statusTs: `1700000001.${String(i).padStart(6, "0")}`,
      stage: "transcribing",
      wakeAt: now - 60_000 + i,
      audio: { taskId: `audio-${i}`, submittedAt: now - 600_000, pollAttempt: 20, progress: null },
    };
    await repo.create(storedJobSchema.parse(job) as Job);
    // A new record waits a minute in the queue; this one has been due for a minute.
    await s.schedule(id, job.wakeAt);
    ids.push(id);
  }
  return ids;
}

/** Polls per whole second since `from`. */
function perSecond(polls: readonly number[], from: number): number[] {
  const seconds: number[] = [];
  for (const t of polls) {
    const k = Math.floor((t - from) / 1000);
    seconds[k] = (seconds[k] ?? 0) + 1;
  }
  return Array.from(seconds, (n) => n ?? 0);
}

describe.each(["memory", "sqlite"] as const)("a restart over overdue jobs (%s)", (kind) => {
  const open = () =>
    openStore(kind === "memory" ? "memory://" : `sqlite://${temp.dir}/restart.sqlite`);

  it("spreads their polls over the cap: no more than the budget a second, every job polled once within it", async () => {
    store = await open();
    const ids = await seedOverdue(store);
    const jobs = jobsOver(store);
    const started = Date.now();
    expect(await jobs.runner.start()).toBe(JOBS);
    // Stepping at once: the longest overdue job is polled as the runner starts.
    await vi.advanceTimersByTimeAsync(50);
    expect(client.calls.audioPolls.length).toBeGreaterThan(0);
    // Every job stepped within the window (and a claim gap), none lost.
    await vi.advanceTimersByTimeAsync(SPREAD_MS + 150);
    for (const id of ids) {
      const job = await jobs.repo.get(id);
      expect(job?.stage === "transcribing" && job.audio.pollAttempt).toBeGreaterThanOrEqual(21);
    }
    // Then on at the cap, each job in its own place of the 15 s cycle: twice through it,
    // no second holds more than the budget.
    await vi.advanceTimersByTimeAsync(SPREAD_MS);
    const polls = client.calls.audioPolls;
    expect(polls.length).toBeGreaterThanOrEqual(2 * JOBS - BUDGET_PER_SECOND);
    expect(Math.max(...perSecond(polls, started))).toBeLessThanOrEqual(BUDGET_PER_SECOND);
    await jobs.runner.stop(100);
  });

  it("a process stalled after the spread catches up at the spread's pace, not in one burst", async () => {
    store = await open();
    const ids = await seedOverdue(store);
    // The process falls behind its spread for 5 s (a store call past its deadline, a CPU
    // starved by other processes): 100 jobs fall due meanwhile.
    const fault = new StoreFault();
    fault.mode = "some";
    fault.methods.add("claimDue");
    const jobs = jobsOver(fault.wrap(store));
    const started = Date.now();
    await jobs.runner.start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(client.calls.audioPolls).toEqual([]);
    fault.mode = "none";
    // Claiming again at the next look (6 s), 300 jobs at 25 a second: all polled by 18 s.
    await vi.advanceTimersByTimeAsync(13_500);
    for (const id of ids) {
      const job = await jobs.repo.get(id);
      expect(job?.stage === "transcribing" && job.audio.pollAttempt).toBeGreaterThanOrEqual(21);
    }
    // The 100 that fell due while it stalled were not polled in the second it came back.
    const seconds = perSecond(client.calls.audioPolls, started);
    expect(Math.max(...seconds)).toBeLessThanOrEqual(CATCH_UP_PER_SECOND);
    await jobs.runner.stop(100);
  });

  it("spreads over the schedule's own cap: a bot polling every 2 s at most is back within 2 s", async () => {
    store = await open();
    const ids = await seedOverdue(store);
    const jobs = jobsOver(store, undefined, 2_000);
    const started = Date.now();
    await jobs.runner.start();
    await vi.advanceTimersByTimeAsync(1_000);
    // Half the window, about half the jobs: spread, not a burst.
    const half = client.calls.audioPolls.length;
    expect(half).toBeGreaterThan(JOBS / 4);
    expect(half).toBeLessThan(JOBS);
    // Every job polled by the window's end (and a claim gap).
    await vi.advanceTimersByTimeAsync(1_200);
    const inWindow = client.calls.audioPolls.filter((t) => t - started <= 2_200);
    expect(inWindow.length).toBeGreaterThanOrEqual(ids.length);
    await jobs.runner.stop(100);
  });

  it("without the spread (0), polls them all in the first second: the burst it prevents", async () => {
    store = await open();
    await seedOverdue(store);
    const jobs = jobsOver(store, 0);
    const started = Date.now();
    await jobs.runner.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(perSecond(client.calls.audioPolls, started)[0]).toBe(JOBS);
    await jobs.runner.stop(100);
  });
});
