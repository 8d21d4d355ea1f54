/**
 * kill -9 the bot at every stage of a job and at the two worst moments of delivery, restart
 * it on the same store, journal and temp folder, and check the durability claims of
 * docs/architecture.md: the job ends `done` with exactly one set of note parts in the thread, exactly
 * one DOCX upload, and exactly one audio and one note task at the Note Service.
 *
 * The bot that dies runs in `worker.ts` (its own process); its restart runs the same job
 * layer in the test process (`startInProcessWorker`; restart-resumes.test.ts restarts a
 * process), beside the Note Service emulator. The gateway journal stands for the Slack thread
 * (a post written before the kill stays there).
 *
 * "Exactly one remote task" holds for every kill here because none lands in the submit window
 * (between storing `submittedAt` and storing the returned `taskId`): the API has no
 * idempotency key, so a kill inside that window is documented (docs/faults.md, steps.ts) as able to
 * create a second remote task. The tests wait until the task id is stored before killing in
 * `transcribing` and `writing`, so they never aim at that window.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../../src/jobs/index.ts";
import type { SpeakerName } from "../../../src/notetaker/index.ts";
import {
  deliveredOf,
  dropRedisKeys,
  randomId,
  readJournal,
  runPrefix,
  spawnWorker,
  type WorkerEnv,
} from "../../../support/crash/harness.ts";
import {
  type RestartedWorker,
  startInProcessWorker,
} from "../../../support/crash/in-process-worker.ts";
import { createEmulator, type Emulator } from "../../../support/emulator/create-emulator.ts";
import { applyKnobsPatch, type KnobsPatch } from "../../../support/emulator/knobs.ts";
import { recordingBytes } from "../../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../../support/fakes/recording-gateway.ts";
import { eventually } from "../../../support/helpers/eventually.ts";
import { HAS_REDIS, redisUrl } from "../../../support/helpers/redis-url.ts";
import { inlineValue } from "../../../support/helpers/stored-values.ts";
import { makeTempDir } from "../../../support/helpers/temp-files.ts";

const RUN_PREFIX = runPrefix();

/** Knobs of every scenario: a note long enough to be posted in several parts. */
const BASE_KNOBS: KnobsPatch = {
  pollsToComplete: 2,
  audioDurationMs: 0,
  noteDurationMs: 0,
  noteMinChars: 2500,
};

const NAMES: SpeakerName[] = [
  { speakerId: "speaker_1", name: "Lan" },
  { speakerId: "speaker_2", name: "Minh" },
];

interface Scenario {
  name: string;
  /** Emulator knobs while the first worker runs (reset to BASE_KNOBS for the restart). */
  knobs?: KnobsPatch;
  /** Extra env of the worker that dies. */
  first?: Partial<WorkerEnv>;
  /** The test kills the first worker once the job satisfies this; else CRASH_AT does. */
  killWhen?: (job: Job, ctx: { sourceOnDisk: boolean }) => boolean;
  /** Audio and note tasks the Note Service had for the job when the first worker died. */
  tasksAtKill: [audio: number, note: number];
  /** Checks what the thread held when the first worker died. */
  atKill?: (delivered: ReturnType<typeof deliveredOf>) => void;
}

const SCENARIOS: Scenario[] = [
  {
    name: "downloading",
    tasksAtKill: [0, 0],
    first: { DOWNLOAD_DELAY_MS: "5000" },
    killWhen: (job) => job.stage === "downloading",
  },
  {
    // Killed after the download was stored but before the audio was submitted.
    name: "transcribing, before the audio is submitted (CRASH_AT=status:transcribing)",
    tasksAtKill: [0, 0],
    first: { CRASH_AT: "status:transcribing" },
    atKill: (delivered) => expect(delivered.downloads).toBe(1),
  },
  {
    // After the task id is stored and the temp audio deleted (steps.ts does both right after
    // the submission): the restart must poll the same task, not submit again.
    name: "transcribing",
    tasksAtKill: [1, 0],
    knobs: { audioDurationMs: 4000 },
    killWhen: (job, { sourceOnDisk }) =>
      job.stage === "transcribing" && job.audio.taskId !== undefined && !sourceOnDisk,
  },
  {
    name: "naming",
    tasksAtKill: [1, 0],
    killWhen: (job) => job.stage === "naming",
  },
  {
    name: "writing",
    tasksAtKill: [1, 1],
    knobs: { noteDurationMs: 4000 },
    killWhen: (job) => job.stage === "writing" && job.task.taskId !== undefined,
  },
  {
    // Each part waits 150 ms before it is posted: the kill lands with a part marked
    // `postingPart` but not (yet) in the thread, or between two parts.
    name: "delivering",
    tasksAtKill: [1, 1],
    first: { PART_DELAY_MS: "150" },
    killWhen: (job) => job.stage === "delivering" && job.postedParts >= 1,
  },
  {
    // Part 1 is in the thread, its `part_posted` checkpoint is not in the store.
    name: "delivering, right after part 1 was posted (CRASH_AT=part:1)",
    tasksAtKill: [1, 1],
    first: { CRASH_AT: "part:1" },
    atKill: (delivered) => {
      expect(delivered.indexes).toEqual([0, 1]);
      expect(delivered.docx).toEqual([]);
    },
  },
  {
    // The DOCX is in the thread, its `docx_uploaded` checkpoint is not in the store.
    name: "delivering, right after the DOCX upload (CRASH_AT=docx)",
    tasksAtKill: [1, 1],
    first: { CRASH_AT: "docx" },
    atKill: (delivered) => {
      expect(delivered.docx).toHaveLength(1);
      // Every part went out before the DOCX.
      expect(delivered.totals).toHaveLength(1);
      expect(delivered.indexes).toEqual([...Array(delivered.totals[0]).keys()]);
    },
  },
  {
    // The canvas exists at Slack, its `canvas_created` checkpoint is not in the store
    // (issue 16): the restart must find it, not make a second one.
    name: "delivering, right after canvases.create (CRASH_AT=canvas)",
    tasksAtKill: [1, 1],
    first: { CRASH_AT: "canvas" },
    atKill: (delivered) => {
      expect(delivered.docx).toHaveLength(1);
    },
  },
];

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let sourcePath: string;

beforeAll(async () => {
  temp = await makeTempDir("mn-crash-");
  sourcePath = await temp.file("recording.m4a", recordingBytes("recording.m4a", 8192, 7));
});
afterAll(async () => {
  await temp?.cleanup();
  if (HAS_REDIS) await dropRedisKeys(redisUrl(), RUN_PREFIX);
});

const backends = [
  { name: "SQLite", enabled: true, storeUrl: (dir: string) => `sqlite://${join(dir, "store.db")}` },
  { name: "Redis", enabled: HAS_REDIS, storeUrl: () => redisUrl() },
];

// Every scenario has its own emulator (in this process: knobs are per emulator) and its own
// store, so they run side by side, vitest's maxConcurrency (5) at a time.
for (const backend of backends) {
  describe.skipIf(!backend.enabled)(
    `kill -9 and restart on ${backend.name}`,
    { concurrent: true },
    () => {
      for (const scenario of SCENARIOS) {
        it(`killed in ${scenario.name}: done, one set of parts, one DOCX, one task of each kind`, async () => {
          const emulator = await createEmulator({ knobs: { ...BASE_KNOBS, ...scenario.knobs } });
          try {
            await runScenario(emulator, backend.storeUrl, scenario);
          } finally {
            await emulator.close();
          }
          // Bounds for a loaded machine (two suites on two cores): the waits end on events.
        }, 120_000);
      }
    },
  );
}

async function runScenario(
  emulator: Emulator,
  storeUrl: (dir: string) => string,
  scenario: Scenario,
) {
  const marker = `crash-${randomId()}`;
  const dir = join(temp.dir, marker);
  const env: WorkerEnv = {
    STORE_URL: storeUrl(dir),
    KEY_PREFIX: `${RUN_PREFIX}-${marker}`,
    NOTE_TAKER_BASE_URL: emulator.baseUrl,
    NOTE_TAKER_API_KEY: emulator.apiKey,
    JOURNAL: join(dir, "journal.jsonl"),
    SOURCE: sourcePath,
    TEMP_DIR: dir,
    // Short leases: on Redis the dead worker's lease must lapse before the restart can
    // drive the job (SQLite leases live in the process and die with it).
    LEASE_TTL_MS: "1000",
    QUEUE_CHECK_MS: "100",
  };
  const filename = `${marker}.m4a`;

  const seen = { audio: new Set<string>(), note: new Set<string>() };
  const note = (job: Job | undefined) => {
    if (job?.stage === "transcribing" && job.audio.taskId) seen.audio.add(job.audio.taskId);
    if (job?.stage === "writing" && job.task.taskId) seen.note.add(job.task.taskId);
    return job;
  };

  const first = await spawnWorker({ ...env, ...scenario.first });
  let second: RestartedWorker | undefined;
  try {
    const started = await first.start({
      fileId: `F${marker}`,
      filename,
      options: { contextText: marker },
    });
    if (started.status !== "created") throw new Error(`not created: ${JSON.stringify(started)}`);
    const id = started.jobId;
    // Each download attempt has a file of its own (`source-<attempt>.m4a`). The worker may
    // remove the job's folder between a look and a listing: then there is no source.
    const sourceOnDisk = () => {
      try {
        return readdirSync(join(dir, "jobs", id)).some((name) => name.startsWith("source"));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
        throw error;
      }
    };

    // Drive the first worker (names when asked) until it is killed, by us or by CRASH_AT.
    const { killWhen } = scenario;
    let named = false;
    const killed = await eventually(
      async () => {
        const job = note(await first.job(id).catch(() => undefined));
        if (job === undefined) return "dead";
        if (killWhen?.(job, { sourceOnDisk: sourceOnDisk() })) return "kill";
        if (job.stage === "naming" && !named) {
          named = true;
          await first.names(id, NAMES).catch(() => undefined);
        }
        return "running";
      },
      (state) => state !== "running",
      {
        what: "the first worker to reach its crash point",
        timeoutMs: 45_000,
        // Every crash point is a stage or a checkpoint that lasts ≥ 150 ms (PART_DELAY_MS).
        intervalMs: 25,
        context: first.output,
      },
    );
    if (killed === "kill") await first.kill();
    expect(await first.exited).toBe("SIGKILL");
    // A copy: the emulator's stats are live.
    const before = structuredClone(emulator.stats);
    scenario.atKill?.(deliveredOf(readJournal(env.JOURNAL), id));

    // The restart: same store, journal and temp folder; no CRASH_AT, no artificial delays.
    // In this process: it starts from what the dead one left (store, journal, files), as a new
    // process would, and nothing kills it (a child process each was 18 Node starts of CPU).
    applyKnobsPatch(emulator.knobs, BASE_KNOBS);
    // Its own leases are long: a restart that stalls past its own lease (a loaded machine)
    // claims its job again and runs a second attempt beside the first, which can submit a
    // second task; that is not what a kill tests. The dead worker's short lease still lapses.
    second = await startInProcessWorker({ ...env, LEASE_TTL_MS: "30000" });
    const worker = second;
    // Names are given to the restarted worker once: if they were given before the kill and
    // did not land, the job asks again and they are given again, once. (Giving them on every
    // look while the first answer is still being applied, on a loaded machine, was a second
    // person's second submission, not a restart's.)
    let namedAgain = false;
    const final = await eventually(
      async () => {
        const job = note(await worker.job(id));
        if (job?.stage === "naming" && job.wakeAt === undefined && !namedAgain) {
          namedAgain = true;
          expect((await worker.names(id, NAMES)).ok).toBe(true);
        }
        return job;
      },
      (job) => job !== undefined && (job.stage === "done" || job.stage === "failed"),
      {
        what: "the restarted worker to finish the job",
        timeoutMs: 45_000,
        intervalMs: 50,
        context: worker.output,
      },
    );

    expect(final?.stage, JSON.stringify(final)).toBe("done");
    if (final?.stage !== "done") return;

    // Exactly one set of note parts: every index 0..total-1 once, in order, and the texts
    // are the note's parts.
    const journal = readJournal(env.JOURNAL);
    const delivered = deliveredOf(journal, id);
    const expected = new RecordingGateway({ sourcePath }).splitNote(inlineValue(final.markdown));
    expect(expected.length).toBeGreaterThanOrEqual(4);
    expect(delivered.totals).toEqual([expected.length]);
    expect(delivered.indexes).toEqual([...expected.keys()]);
    expect(delivered.parts.map((p) => p.text)).toEqual(expected);
    expect(final.postedParts).toBe(expected.length);
    // Exactly one DOCX upload, and it is the one the job remembers.
    expect(delivered.docx).toHaveLength(1);
    expect(final.docxFileId).toBe(delivered.docx[0]?.fileId);
    // Exactly one transcript and one canvas (the channel's defaults have both), the ones
    // the job remembers; the canvas shared with the channel.
    const mine = journal.filter((r) => r.jobId === id);
    const transcripts = mine.flatMap((r) => (r.op === "transcript" ? [r] : []));
    expect(transcripts).toHaveLength(1);
    expect(final.transcript?.fileIds).toEqual(transcripts[0]?.fileIds);
    const canvases = mine.flatMap((r) => (r.op === "canvas" ? [r] : []));
    expect(canvases).toHaveLength(1);
    expect(final.canvas?.id).toBe(canvases[0]?.canvasId);
    expect(final.canvas?.url).toContain(canvases[0]?.canvasId ?? "?");
    // The status line says done (it is edited right after the `delivered` checkpoint).
    await eventually(
      async () =>
        readJournal(env.JOURNAL).flatMap((r) => (r.jobId === id && r.op === "status" ? [r] : [])),
      (statuses) => statuses.at(-1)?.stage === "done",
      { what: "the status line to say done", timeoutMs: 5000 },
    );

    // Exactly one audio and one note task for this job at the Note Service.
    const stats = emulator.stats;
    const audio = stats.audioSubmissions.filter((s) => s.filename === filename);
    const notes = stats.noteSubmissions.filter((s) => s.contextText === marker);
    expect(audio).toHaveLength(1);
    expect(notes).toHaveLength(1);
    // The job never held another task id than the one submitted.
    expect(seen.audio.size).toBeLessThanOrEqual(1);
    expect(seen.note.size).toBeLessThanOrEqual(1);
    for (const taskId of seen.audio) expect(taskId).toBe(audio[0]?.taskId);
    for (const taskId of seen.note) expect(taskId).toBe(notes[0]?.taskId);
    // The names given reached the note.
    expect(JSON.stringify(notes[0]?.speakerMap)).toContain("Lan");
    // The kill came where the scenario says: a task submitted before it was not submitted
    // again after the restart, a task not yet submitted was submitted once.
    expect([
      before.audioSubmissions.filter((s) => s.filename === filename).length,
      before.noteSubmissions.filter((s) => s.contextText === marker).length,
    ]).toEqual(scenario.tasksAtKill);

    // Nothing of the job is left in the temp folder (audio and DOCX are deleted): the folder
    // goes right after the job's last save, which the checks above may have read first.
    await eventually(
      async () => readdirSync(join(dir, "jobs")).filter((name) => name.startsWith(id)),
      (left) => left.length === 0,
      { what: "the job's temp folder removed", timeoutMs: 10_000 },
    );
  } finally {
    await first.kill();
    await second?.stop();
  }
}
