import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createJobs, type Job, type NoteTakerPort } from "../../src/jobs/index.ts";
import {
  createPollSchedule,
  NoteTakerTransientError,
  normalizeProgress,
  type ProgressTrail,
} from "../../src/notetaker/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { origin, source } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const running = (rawStatus: string) => ({ status: "running" as const, rawStatus, progress: null });
/** A running task that reports how far it is, as the service may: 0.45, 45, "45%". */
const at = (progress: unknown) => ({
  status: "running" as const,
  rawStatus: "processing",
  progress: normalizeProgress(progress),
});
const READINGS = [0.1, 20, "30%", "0.4"];

/**
 * The waits the progress-led plan gives for `readings` seen at `polls` (replayed on a fresh
 * schedule: it is pure), and what it keeps of them.
 */
function planned(polls: readonly number[], readings: readonly unknown[]) {
  const schedule = createPollSchedule({ initialMs: 2000, maxMs: 15_000, jitter: 0 });
  let trail: ProgressTrail | undefined;
  const waits = readings.map((reading, attempt) => {
    const plan = schedule.afterRunning({
      attempt,
      trail,
      progress: normalizeProgress(reading),
      now: polls[attempt] ?? 0,
    });
    trail = plan.trail;
    return plan.waitMs;
  });
  return { waits };
}
const gaps = (times: readonly number[]) => times.slice(1).map((t, i) => t - (times[i] ?? t));

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let client: ScriptedNoteTaker;
let gateway: RecordingGateway;
let jobs: ReturnType<typeof createJobs>;

beforeEach(async () => {
  temp = await makeTempDir();
  const sourcePath = await temp.file("rec.m4a", recordingBytes("rec.m4a"));
  vi.useFakeTimers({
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
  });
  vi.setSystemTime(new Date("2026-11-21T09:00:00Z"));
  store = await openStore("memory://");
  client = new ScriptedNoteTaker();
  gateway = new RecordingGateway({ sourcePath });
  jobs = createJobs({
    store,
    client,
    gateway,
    // The production schedule: 2 s first, doubling, capped at 15 s (jitter off to assert it).
    schedule: createPollSchedule({ initialMs: 2000, maxMs: 15_000, jitter: 0 }),
    logger: pino({ level: "silent" }),
    tempDir: `${temp.dir}/jobs`,
    retentionMs: 30 * 24 * 3600_000,
    failurePolicy: { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 10_000, random: () => 0 },
  });
  await jobs.runner.start();
});
afterEach(async () => {
  await jobs.runner.stop(100);
  await store.close();
  vi.useRealTimers();
  await temp.cleanup();
});

async function start(): Promise<string> {
  const result = await jobs.service.start({ origin: origin(), source: source(), options: {} });
  if (result.status !== "created") throw new Error(result.status);
  return result.job.id;
}
async function stageOf(id: string): Promise<Job["stage"] | undefined> {
  return (await jobs.service.get(id))?.stage;
}
// Captured before the clock is faked: real I/O (temp files) needs real time to finish.
const realSetTimeout = globalThis.setTimeout;
const realPause = () => new Promise((resolve) => realSetTimeout(resolve, 1));
const realHrtime = process.hrtime.bigint.bind(process.hrtime);
const realNow = () => Number(realHrtime() / 1_000_000n);

/** Moves the fake clock forward in steps, giving real I/O a moment between steps. */
async function advance(ms: number, stepMs = 250): Promise<void> {
  for (let passed = 0; passed < ms; passed += stepMs) {
    await vi.advanceTimersByTimeAsync(Math.min(stepMs, ms - passed));
    await realPause();
  }
}

/** Real time a wait may take before it gives up, however far the fake clock has gone. */
const REAL_PATIENCE_MS = 20_000;

/**
 * Advances the fake clock until `check` holds, at most `maxMs` of fake time (0: the clock
 * stands still and only due timers and real I/O run). Real I/O (the temp files) runs on
 * real time: on a loaded machine it can take longer than the fake minutes the loop moves
 * in that while, so the wait ends only once both budgets are spent — past `maxMs` the
 * clock stands still and real I/O gets longer pauses, up to REAL_PATIENCE_MS.
 */
async function advanceUntil(
  check: () => Promise<boolean> | boolean,
  maxMs = 120_000,
  stepMs = 250,
) {
  const realStart = realNow();
  for (let passed = 0, spins = 0; ; spins++) {
    if (await check()) return;
    const fakeSpent = passed >= maxMs && spins > 50;
    if (fakeSpent && realNow() - realStart >= REAL_PATIENCE_MS) {
      throw new Error(`condition not reached in ${maxMs} ms of fake time`);
    }
    const step = Math.min(stepMs, maxMs - passed);
    await vi.advanceTimersByTimeAsync(step);
    passed += step;
    await (fakeSpent ? new Promise((resolve) => realSetTimeout(resolve, 20)) : realPause());
  }
}
const inStage = (id: string, stage: Job["stage"]) => async () => (await stageOf(id)) === stage;

/** Another job layer on `store`, as another replica or the process after a restart. */
function jobsOn(
  on: Store,
  noteTaker: NoteTakerPort,
  runner?: NonNullable<Parameters<typeof createJobs>[0]["runner"]>,
) {
  return createJobs({
    store: on,
    client: noteTaker,
    gateway,
    schedule: createPollSchedule({ initialMs: 2000, maxMs: 15_000, jitter: 0 }),
    logger: pino({ level: "silent" }),
    tempDir: `${temp.dir}/jobs`,
    retentionMs: 30 * 24 * 3600_000,
    ...(runner === undefined ? {} : { runner }),
  });
}

/** A job in transcribing, polling task `t<i>`, as the store would hold it. */
async function jobOf(i: number): Promise<Job> {
  const now = Date.now();
  return {
    id: `idle-${i}`,
    stage: "transcribing",
    createdAt: now,
    updatedAt: now,
    stageStartedAt: now,
    wakeAt: now,
    attempts: 0,
    origin: origin(),
    source: source(),
    options: {},
    audio: { taskId: `t${i}`, submittedAt: now, pollAttempt: 3, progress: null },
  };
}

describe("job runner (fake client, fake gateway, fake timers)", () => {
  it("keeps polling through statuses it has never heard of, on the 2-4-8-15 s schedule", async () => {
    client.audioScript = [
      running("uploading"),
      running("diarizing"),
      running("aligning"),
      running("polishing"),
      running("almost"),
      { status: "completed", result: { dialogUrl: "https://r.test/d" } },
    ];
    const id = await start();
    await advanceUntil(inStage(id, "naming"));
    const t0 = client.calls.audioPolls[0] ?? 0;
    const gaps = client.calls.audioPolls
      .slice(1)
      .map((t, i) => t - (client.calls.audioPolls[i] ?? t0));
    expect(client.calls.audioPolls).toHaveLength(6);
    expect(gaps).toEqual([4000, 8000, 15_000, 15_000, 15_000]);
  });

  it("polls both tasks when their progress says they end, keeping what they saw in the record", async () => {
    client.audioScript = [
      ...READINGS.map(at),
      { status: "completed", result: { dialogUrl: "https://r.test/d" } },
    ];
    client.noteScript = [
      ...READINGS.map(at),
      {
        status: "completed",
        result: { markdown: "# N\n\n## A\nx", docxUrl: "https://r.test/n" },
      },
    ];
    const id = await start();
    // The record keeps the readings (first and last seen, fraction) between polls.
    const stored = async (stage: "transcribing" | "writing") => {
      const job = await jobs.service.get(id);
      if (job?.stage === "transcribing" && stage === job.stage) return job.audio;
      return job?.stage === "writing" && stage === job.stage ? job.task : undefined;
    };
    await advanceUntil(async () => (await stored("transcribing"))?.trail?.runs.length === 2);
    const audio = await stored("transcribing");
    expect(audio?.trail?.runs.map(([, , fraction]) => fraction)).toEqual([0.1, 0.2]);
    expect(audio?.progress).toEqual({ fraction: 0.2, label: "20%" });
    await advanceUntil(inStage(id, "naming"));
    // Each wait is the plan's for what the polls saw, not the guide's 4-8-15-15 s.
    const audioPlan = planned(client.calls.audioPolls, READINGS);
    expect(client.calls.audioPolls).toHaveLength(5);
    expect(gaps(client.calls.audioPolls)).toEqual(audioPlan.waits);
    expect(audioPlan.waits).not.toEqual([4000, 8000, 15_000, 15_000]);

    expect((await jobs.service.skipNaming(id)).ok).toBe(true);
    await advanceUntil(async () => (await stored("writing"))?.trail?.runs.length === 3);
    const task = await stored("writing");
    expect(task?.trail?.runs.map(([, , fraction]) => fraction)).toEqual([0.1, 0.2, 0.3]);
    await advanceUntil(inStage(id, "done"));
    expect(client.calls.notePolls).toHaveLength(5);
    expect(gaps(client.calls.notePolls)).toEqual(planned(client.calls.notePolls, READINGS).waits);
  });

  it("fails a transcription that runs past its 3-hour limit, with a clear reason", async () => {
    client.audioScript = [running("processing")];
    const id = await start();
    await advanceUntil(() => client.calls.audioPolls.length > 0);
    await advance(3 * 3600_000, 60_000);
    await advanceUntil(inStage(id, "failed"));
    const job = await jobs.service.get(id);
    expect(job).toMatchObject({ stage: "failed", failedStage: "transcribing", retryable: true });
    expect(job?.stage === "failed" && job.failure).toEqual({ code: "timeout", detail: "180" });
    expect(gateway.of(id, "status").at(-1)).toMatchObject({ stage: "failed", detail: "timeout" });
  });

  it("cancel stops polling", async () => {
    client.audioScript = [running("processing")];
    const id = await start();
    await advanceUntil(() => client.calls.audioPolls.length > 1);
    const polls = client.calls.audioPolls.length;
    expect((await jobs.service.cancel(id, "U1")).ok).toBe(true);
    await advance(120_000);
    expect(client.calls.audioPolls).toHaveLength(polls);
    expect(await stageOf(id)).toBe("canceled");
    expect(gateway.of(id, "status").at(-1)?.stage).toBe("canceled");
  });

  it("retry resumes a failed note from the note step, not from the recording", async () => {
    client.noteScript = [
      { status: "failed", message: "Note engine overloaded." },
      { status: "completed", result: { markdown: "# N\n\n## A\nx", docxUrl: "https://r.test/n" } },
    ];
    const id = await start();
    await advanceUntil(inStage(id, "naming"));
    expect((await jobs.service.skipNaming(id)).ok).toBe(true);
    await advanceUntil(inStage(id, "failed"));
    expect(await jobs.service.get(id)).toMatchObject({ stage: "failed", failedStage: "writing" });
    expect((await jobs.service.retry(id)).ok).toBe(true);
    await advanceUntil(inStage(id, "done"));
    expect(client.calls.submitAudio).toBe(1);
    expect(client.calls.submitDialog).toBe(2);
  });

  it("regenerate reruns only the note step, with the new names", async () => {
    const id = await start();
    await advanceUntil(inStage(id, "naming"));
    await jobs.service.submitNames(id, [{ speakerId: "speaker_1", name: "Lan" }]);
    await advanceUntil(inStage(id, "done"));
    const result = await jobs.service.regenerate(id, {
      speakerMap: [{ speakerId: "speaker_1", name: "Hoa" }],
      contextText: "Budget review",
    });
    expect(result.ok).toBe(true);
    await advanceUntil(() => client.calls.submitDialog === 2);
    await advanceUntil(inStage(id, "done"));
    expect(client.calls.submitAudio).toBe(1);
    expect(client.calls.audioPolls).toHaveLength(1);
    expect(client.submittedDialogs.at(-1)).toMatchObject({
      speakerMap: [{ speaker_id: "speaker_1", name: "Hoa" }],
      contextText: "Budget review",
    });
  });

  it("waits out transient errors with growing delays, then fails saying the service is unavailable", async () => {
    client.audioScript = [new NoteTakerTransientError("503")];
    const id = await start();
    await advanceUntil(() => client.calls.audioPolls.length > 0);
    expect(await stageOf(id)).toBe("transcribing");
    await advanceUntil(inStage(id, "failed"));
    const job = await jobs.service.get(id);
    expect(job?.stage === "failed" && job.failure.code).toBe("unavailable");
    expect(client.calls.audioPolls).toHaveLength(3);
  });

  it("resumes overdue polls at start-up at once and future ones on time", async () => {
    client.audioScript = [running("processing")];
    const id = await start();
    await advanceUntil(() => client.calls.audioPolls.length > 0);
    await jobs.runner.stop(100);
    const before = client.calls.audioPolls.length;
    const stored = await jobs.service.get(id);
    const wakeAt = stored?.wakeAt ?? 0;
    // A new runner on the same store, as after a restart, long after the poll was due (time
    // passes: setting the wall clock alone would move no due time, see clock-jumps.test.ts).
    vi.advanceTimersByTime(wakeAt + 60_000 - store.now());
    const restarted = jobsOn(store, client);
    expect(await restarted.runner.start()).toBe(1);
    await advanceUntil(() => client.calls.audioPolls.length > before, 0);
    expect(client.calls.audioPolls.at(-1)).toBe(wakeAt + 60_000);
    // The next poll follows the stored schedule, not the restart.
    const nextWake = (await jobs.service.get(id))?.wakeAt ?? 0;
    expect(nextWake - Date.now()).toBeGreaterThanOrEqual(4000);
    await advance(nextWake - Date.now() - 500);
    expect(client.calls.audioPolls.length).toBe(before + 1);
    await advance(1000);
    expect(client.calls.audioPolls.length).toBe(before + 2);
    await restarted.runner.stop(100);
  });

  it("keeps up with a backlog: claims again as room frees, not once per claim gap", async () => {
    // Regression: a replica claimed at most its room (18) every 100 ms, so it could not poll
    // more than 180 jobs a second however light the polls: 10,000 jobs fell minutes behind.
    await jobs.runner.stop(100);
    const claims = { count: 0 };
    const claimDue = store.claimDue.bind(store);
    store.claimDue = (...args) => {
      claims.count += 1;
      return claimDue(...args);
    };
    client.audioScript = [running("processing")];
    // The pump's own pace: not a restart's backlog spread over the poll cap.
    const busy = jobsOn(store, client, { restartSpreadMs: 0 });
    for (let i = 0; i < 300; i++) await busy.repo.create(await jobOf(i));
    const startedAt = Date.now();
    await busy.runner.start();
    await advanceUntil(() => client.calls.audioPolls.length >= 300, 5_000, 10);
    const took = Date.now() - startedAt;
    await busy.runner.stop(100);
    // At one claim of 18 per 100 ms this took 1.7 s; the polls themselves take no time here.
    expect(took).toBeLessThan(500);
    // Still in batches: at least half the room (9) per claim, give or take the ends.
    expect(claims.count).toBeLessThanOrEqual(Math.ceil(300 / 9) + 5);
  });

  it("gives back at stop the jobs it claimed but had not started, so a peer takes them at once", async () => {
    // Regression: a claim hides a job for a lease time (60 s); a job still waiting for a
    // slot when the process stopped stayed hidden that long.
    await jobs.runner.stop(100);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const polled: string[] = [];
    const holding = new ScriptedNoteTaker();
    holding.getAudioTask = async (taskId: string) => {
      polled.push(taskId);
      await held;
      return running("processing");
    };
    const one = jobsOn(store, holding, {
      concurrency: { transfers: 1, calls: 1 },
      restartSpreadMs: 0,
    });
    for (let i = 0; i < 3; i++) await one.repo.create(await jobOf(i));
    await one.runner.start();
    await advanceUntil(() => polled.length === 1 && one.runner.stats().queued === 1, 0);
    // Two claimed (one slot for calls, one for transfers): one stepping, one waiting.
    expect(one.runner.stats()).toEqual({ scheduled: 2, running: 1, queued: 1 });
    const stopping = one.runner.stop(100);
    release();
    await stopping;

    const peerPolls: string[] = [];
    const peerClient = new ScriptedNoteTaker();
    peerClient.audioScript = [running("processing")];
    const original = peerClient.getAudioTask.bind(peerClient);
    peerClient.getAudioTask = async (taskId: string) => {
      peerPolls.push(taskId);
      return original(taskId);
    };
    // All due at once (no restart spread, see restart-spread.test.ts): what is given back.
    const peer = jobsOn(store, peerClient, { restartSpreadMs: 0 });
    await peer.runner.start();
    await advance(2_000);
    await peer.runner.stop(100);
    // The two it had not polled, long before the 60 s lease would have lapsed.
    expect(new Set(peerPolls)).toEqual(new Set(["t0", "t1", "t2"].filter((t) => t !== polled[0])));
  });

  it("reads no job while none is due, and looks at the queue as often for 300 jobs as for 1", async () => {
    // Regression: every replica read the whole active index every 30 s and every job it had
    // no timer for, so its store work grew with jobs × replicas even with nothing due.
    const counted = async (jobCount: number) => {
      const counting = await openStore("memory://");
      const calls = { get: 0, listActive: 0, claimDue: 0 };
      for (const name of Object.keys(calls) as (keyof typeof calls)[]) {
        const original = (counting[name] as (...args: unknown[]) => unknown).bind(counting);
        (counting as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
          calls[name] += 1;
          return original(...args);
        };
      }
      const replicas = [0, 1].map(() => jobsOn(counting, client));
      const later = Date.now() + 3600_000;
      for (let i = 0; i < jobCount; i++) {
        const job = { ...(await jobOf(i)), wakeAt: later };
        await replicas[0]?.repo.create(job);
      }
      for (const replica of replicas) await replica.runner.start();
      for (const name of Object.keys(calls) as (keyof typeof calls)[]) calls[name] = 0;
      await advance(60_000, 1_000);
      for (const replica of replicas) await replica.runner.stop(100);
      await counting.close();
      return calls;
    };
    const one = await counted(1);
    const many = await counted(300);
    expect(many.get).toBe(0);
    expect(many.listActive).toBe(0);
    // One look at the queue per second per replica (the default), whatever the jobs.
    expect(many.claimDue).toBeLessThanOrEqual(2 * 62);
    expect(many.claimDue).toBeLessThanOrEqual(one.claimDue + 4);
  });
});
