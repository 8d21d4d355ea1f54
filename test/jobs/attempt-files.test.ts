/**
 * Each attempt of a step writes files of its own (issue 23): an attempt cut short by a lost
 * lease, still unwinding, deleted the recording its successor was downloading into the same
 * path. And one attempt at a time runs in a process: a successor claimed while its predecessor
 * unwinds starts once that one has ended, else a call both make would be made twice. The lease
 * is lost here as it would be after a long stall: the store's monotonic clock is moved past it.
 */
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { SlackPort } from "../../src/jobs/index.ts";
import type { Store } from "../../src/store/index.ts";
import { openMemoryStore } from "../../src/store/sqlite-store.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { origin, source, testJobs, waitForStage } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let jobs: ReturnType<typeof testJobs> | undefined;
/** Added to the store's monotonic clock: a stall of the whole process, as the store sees it. */
let stalled = 0;

beforeEach(async () => {
  temp = await makeTempDir("mn-attempts-");
  stalled = 0;
  store = openMemoryStore({
    keyPrefix: "attempts",
    sweepIntervalMs: 0,
    clock: { wall: () => Date.now(), mono: () => performance.now() + stalled },
  });
});
afterEach(async () => {
  await jobs?.runner.stop(100);
  await store.close();
  await temp.cleanup();
});

/** The jobs layer on short leases (a stall soon outlasts them), and one job started on it. */
async function startJob(gateway: SlackPort, client: ScriptedNoteTaker) {
  const built = testJobs({
    store,
    client,
    gateway,
    tempDir: temp.dir,
    overrides: {
      runner: { leaseTtlMs: 300, queueCheckMs: 50, claimGapMs: 5, statusThrottleMs: 0 },
    },
  });
  jobs = built;
  await built.runner.start();
  const result = await built.service.start({ origin: origin(), source: source(), options: {} });
  if (result.status !== "created") throw new Error(result.status);
  return { id: result.job.id, service: built.service };
}

/** How many times the job was claimed from the due queue. */
function countClaims(): () => number {
  let claims = 0;
  const claimDue = store.claimDue.bind(store);
  store.claimDue = async (...args) => {
    const found = await claimDue(...args);
    claims += found.claimed.length;
    return found;
  };
  return () => claims;
}

it("never lets an aborted download attempt delete the file its successor downloads", async () => {
  const sourcePath = await temp.file("rec.m4a", recordingBytes("rec.m4a"));
  const recording = new RecordingGateway({ sourcePath });
  const destinations: string[] = [];
  const events: string[] = [];
  const claims = countClaims();
  let successorFileSurvived: boolean | undefined;
  const gateway: SlackPort = Object.create(recording);
  gateway.downloadSource = async (job, destPath, signal, limits) => {
    destinations.push(destPath);
    if (destinations.length === 1) {
      // Half written, then the lease goes; the real download deletes its file on failure,
      // late (the job is claimed again by then).
      const claimed = claims();
      await writeFile(destPath, "the first half");
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      await eventually(claims, (n) => n > claimed, { what: "the next claim" });
      await rm(destPath, { force: true });
      events.push("first cleaned up");
      throw signal.reason;
    }
    events.push("second started");
    await recording.downloadSource(job, destPath, signal, limits);
    successorFileSurvived = existsSync(destPath);
  };
  const client = new ScriptedNoteTaker();
  const { id, service } = await startJob(gateway, client);
  await eventually(
    () => destinations.length,
    (n) => n === 1,
    { what: "the first attempt" },
  );
  // The process "stalls" past the lease: the next renewal finds it lost, the step aborts,
  // and the job is claimed again.
  stalled += 10_000;
  await eventually(
    () => destinations.length,
    (n) => n === 2,
    { what: "the second attempt" },
  );
  const job = await waitForStage(service.get.bind(service), id, "naming", "failed");
  expect(job?.stage).toBe("naming");
  const [first = "", second = ""] = destinations;
  expect(second).not.toBe(first);
  // Both in the job's own folder, each with its own name.
  expect(dirname(second)).toBe(dirname(first));
  expect(basename(first)).toMatch(/^source-[0-9a-f]{8}\.m4a$/);
  expect(events).toEqual(["first cleaned up", "second started"]);
  expect(successorFileSurvived).toBe(true);
  expect(client.calls.submitAudio).toBe(1);
});

it("stops an attempt claimed again while it still runs here, and starts the next once it ended", async () => {
  // The stall hides the lease's loss from the attempt's own renewals (they come late, or
  // answer late): only the new claim tells it.
  store.renewLease = async () => true;
  const sourcePath = await temp.file("rec.m4a", recordingBytes("rec.m4a"));
  const recording = new RecordingGateway({ sourcePath });
  const events: string[] = [];
  const gateway: SlackPort = Object.create(recording);
  gateway.downloadSource = async (job, destPath, signal, limits) => {
    if (events.length === 0) {
      events.push("first started");
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      events.push(`first stopped: ${(signal.reason as Error).name}`);
      throw signal.reason;
    }
    events.push("second started");
    await recording.downloadSource(job, destPath, signal, limits);
  };
  const client = new ScriptedNoteTaker();
  const { id, service } = await startJob(gateway, client);
  await eventually(
    () => events.length,
    (n) => n === 1,
    { what: "the first attempt" },
  );
  stalled += 10_000;
  const job = await waitForStage(service.get.bind(service), id, "naming", "failed");
  expect(job?.stage).toBe("naming");
  expect(events).toEqual(["first started", "first stopped: LeaseLost", "second started"]);
  expect(client.calls.submitAudio).toBe(1);
});

it("never lets an aborted DOCX download delete the file its successor downloads", async () => {
  const sourcePath = await temp.file("rec.m4a", recordingBytes("rec.m4a"));
  const gateway = new RecordingGateway({ sourcePath });
  const destinations: string[] = [];
  const events: string[] = [];
  const claims = countClaims();
  let successorFileSurvived: boolean | undefined;
  const client = new ScriptedNoteTaker();
  const download = client.downloadDocx.bind(client);
  client.downloadDocx = async (url: string, destPath: string, signal?: AbortSignal) => {
    destinations.push(destPath);
    if (destinations.length === 1) {
      // As the audio above: half written, the lease lost, the file deleted late.
      const claimed = claims();
      await writeFile(destPath, "PK half");
      await new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }));
      await eventually(claims, (n) => n > claimed, { what: "the next claim" });
      await rm(destPath, { force: true });
      events.push("first cleaned up");
      throw signal?.reason;
    }
    events.push("second started");
    const bytes = await download(url, destPath);
    successorFileSurvived = existsSync(destPath);
    return bytes;
  };
  const { id, service } = await startJob(gateway, client);
  await waitForStage(service.get.bind(service), id, "naming");
  await service.skipNaming(id);
  await eventually(
    () => destinations.length,
    (n) => n === 1,
    { what: "the first DOCX download" },
  );
  stalled += 10_000;
  const job = await waitForStage(service.get.bind(service), id, "done", "failed");
  expect(job?.stage).toBe("done");
  const [first = "", second = ""] = destinations;
  expect(second).not.toBe(first);
  expect(dirname(second)).toBe(dirname(first));
  expect(basename(first)).toMatch(/^notes-[0-9a-f]{8}\.docx$/);
  expect(events).toEqual(["first cleaned up", "second started"]);
  expect(successorFileSurvived).toBe(true);
  expect(gateway.records.filter((r) => r.op === "docx")).toHaveLength(1);
});
