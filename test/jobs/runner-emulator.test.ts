import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../src/jobs/index.ts";
import { fastRetryPolicy, NoteTakerClient } from "../../src/notetaker/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { createEmulator, type Emulator } from "../../support/emulator/create-emulator.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { origin, source, testJobs, waitForStage } from "../../support/helpers/jobs-kit.ts";
import { inlineValue, withValuesInline } from "../../support/helpers/stored-values.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

let emulator: Emulator;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let gateway: RecordingGateway;
let jobs: ReturnType<typeof testJobs>;

beforeAll(async () => {
  emulator = await createEmulator();
  temp = await makeTempDir();
});
afterAll(async () => {
  await emulator.close();
  await temp.cleanup();
});
beforeEach(async () => {
  emulator.reset();
  store = await openStore("memory://");
  gateway = new RecordingGateway({
    sourcePath: await temp.file("rec.m4a", recordingBytes("rec.m4a", 2048, 3)),
  });
  const client = new NoteTakerClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.apiKey,
    retryPolicy: fastRetryPolicy,
  });
  jobs = testJobs({ store, client, gateway, tempDir: temp.dir });
  await jobs.runner.start();
});
afterEach(async () => {
  await jobs.runner.stop(1000);
  await store.close();
});

async function startJob() {
  const result = await jobs.service.start({ origin: origin(), source: source(), options: {} });
  if (result.status !== "created") throw new Error(`not created: ${result.status}`);
  return result.job.id;
}
const get = (id: string) => jobs.service.get(id);

describe("job runner against the emulator", () => {
  it("keeps every job record under 2 KB while the transcript and the note are large", async () => {
    Object.assign(emulator.knobs, {
      pollsToComplete: 3,
      dialogBytes: 600_000,
      noteMinChars: 40_000,
    });
    const records: number[] = [];
    const set = store.set.bind(store);
    store.set = async (ns, key, value, ttlMs) => {
      if (ns === "jobs") records.push(JSON.stringify(value).length);
      return set(ns, key, value, ttlMs);
    };
    const id = await startJob();
    await waitForStage(get, id, "naming");
    expect((await jobs.service.skipNaming(id)).ok).toBe(true);
    const done = await waitForStage(get, id, "done");
    if (done?.stage !== "done") throw new Error(`ended ${done?.stage}`);
    const read = await withValuesInline(store, done);
    if (read.stage !== "done") throw new Error("not done");
    expect(JSON.stringify(inlineValue(read.note.dialog)).length).toBeGreaterThan(500_000);
    expect(inlineValue(read.markdown).length).toBeGreaterThan(40_000);
    expect(records.length).toBeGreaterThan(8);
    expect(Math.max(...records)).toBeLessThanOrEqual(2048);
  });

  it("takes a recording to naming, then with names to one set of parts and one DOCX", async () => {
    emulator.knobs.pollsToComplete = 3;
    const id = await startJob();
    const naming = await waitForStage(get, id, "naming");
    expect(naming?.stage).toBe("naming");
    if (naming?.stage !== "naming") return;
    expect(naming.speakers.map((s) => s.speakerId)).toEqual(["speaker_1", "speaker_2"]);
    expect((await jobs.service.quotesOf(naming)).speaker_1).toHaveLength(2);
    expect(naming.wakeAt).toBeUndefined();
    expect(await readdir(join(temp.dir, "jobs"))).toEqual([]); // temp audio gone

    const result = await jobs.service.submitNames(id, [
      { speakerId: "speaker_1", name: "Lan" },
      { speakerId: "speaker_2", name: "Minh", gender: "male" },
    ]);
    expect(result.ok).toBe(true);
    const done = await waitForStage(get, id, "done");
    expect(done?.stage).toBe("done");
    const parts = gateway.of(id, "part");
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((p) => p.index)).toEqual([...parts.keys()]);
    expect(parts.map((p) => p.text).join("\n")).toContain("Lan");
    expect(gateway.of(id, "docx")).toHaveLength(1);
    expect(gateway.of(id, "status").at(-1)?.stage).toBe("done");
    expect(emulator.stats.audioSubmissions).toHaveLength(1);
    expect(emulator.stats.noteSubmissions).toHaveLength(1);
    expect(await jobs.repo.listActiveIds()).toEqual([]);
  });

  it("skips naming and keeps the service's labels", async () => {
    const id = await startJob();
    await waitForStage(get, id, "naming");
    expect((await jobs.service.skipNaming(id)).ok).toBe(true);
    await waitForStage(get, id, "done");
    expect(emulator.stats.noteSubmissions[0]?.speakerMap).toBeUndefined();
  });

  it("regenerates only the note step with new names", async () => {
    const id = await startJob();
    await waitForStage(get, id, "naming");
    await jobs.service.skipNaming(id);
    await waitForStage(get, id, "done");
    const result = await jobs.service.regenerate(id, {
      speakerMap: [{ speakerId: "speaker_1", name: "Hoa" }],
    });
    expect(result.ok).toBe(true);
    // Recorded at once; applied once the step that delivered the first note lets the job go.
    const done = await eventually(
      () => get(id),
      (job) => job?.stage === "done" && job.regeneratedAt !== undefined,
      { what: "the regenerated note delivered" },
    );
    expect(done?.updatedAt).toBeGreaterThan(0);
    expect(emulator.stats.audioSubmissions).toHaveLength(1);
    expect(emulator.stats.noteSubmissions).toHaveLength(2);
    expect(gateway.of(id, "docx")).toHaveLength(2);
    expect(gateway.of(id, "part").at(-1)?.text ?? "").not.toBe("");
    expect(JSON.stringify(gateway.of(id, "part"))).toContain("Hoa");
  });

  it("rewrites the note when its DOCX link expired before download", async () => {
    const id = await startJob();
    await waitForStage(get, id, "naming");
    emulator.knobs.expireDocxLinks = true;
    await jobs.service.skipNaming(id);
    // Once the first link has expired and the note is being written again, links work again.
    await eventually(
      () => emulator.stats.noteSubmissions.length,
      (n) => n >= 2,
      { what: "the note written again", intervalMs: 2 },
    );
    emulator.knobs.expireDocxLinks = false;
    const done = await waitForStage(get, id, "done");
    expect(done?.stage).toBe("done");
    expect(emulator.stats.noteSubmissions.length).toBeGreaterThanOrEqual(2);
    expect(gateway.of(id, "docx")).toHaveLength(1);
  });

  it("shows a failed task's message and resumes on retry", async () => {
    emulator.knobs.failNextTasks = [{ kind: "audio", message: "The audio is unreadable." }];
    const id = await startJob();
    const failed = (await waitForStage(get, id, "failed")) as Extract<Job, { stage: "failed" }>;
    expect(failed.failure).toEqual({ code: "task_failed", detail: "The audio is unreadable." });
    expect(failed.retryable).toBe(true);
    expect(gateway.of(id, "status").at(-1)).toMatchObject({
      stage: "failed",
      detail: "task_failed",
    });
    expect((await jobs.service.retry(id)).ok).toBe(true);
    await waitForStage(get, id, "naming");
    expect(emulator.stats.audioSubmissions).toHaveLength(2);
  });

  it("cancel stops polling and removes the temp files", async () => {
    emulator.knobs.pollsToComplete = 1000;
    const id = await startJob();
    await waitForStage(get, id, "transcribing");
    const polled = await waitForPolls(2);
    expect((await jobs.service.cancel(id, "U1")).ok).toBe(true);
    await waitForStage(get, id, "canceled");
    const after = emulator.stats.polls.audio;
    // No timer or step is left for the job, so no poll can come any more.
    await eventually(
      () => jobs.runner.stats(),
      (queues) => queues.scheduled === 0 && queues.running === 0,
    );
    await jobs.runner.settled();
    expect(emulator.stats.polls.audio).toBeLessThanOrEqual(after + 1);
    expect(polled).toBeGreaterThanOrEqual(2);
    expect(existsSync(join(temp.dir, "jobs", `${id}.m4a`))).toBe(false);
  });
});

/** The audio polls so far, once there are `n` (or after 5 s, however many). */
function waitForPolls(n: number) {
  const polls = () => emulator.stats.polls.audio;
  return eventually(polls, (count) => count >= n, { timeoutMs: 5_000, orLast: true });
}
