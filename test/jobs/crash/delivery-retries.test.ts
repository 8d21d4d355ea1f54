/**
 * The retry budget around the delivery checkpoints. A step that keeps failing for a
 * transient reason is tried again `maxAttempts` times, then the job fails with a reason the
 * user can read (failure-policy.ts). In `delivering`, a failed post or upload leaves its
 * intent (`postingPart` / `uploadingDocx`) behind, exactly like a crash does, so the next
 * attempt first reconciles with the thread — and that must not reset the count.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Job, type SlackPort, SlackPortError } from "../../../src/jobs/index.ts";
import { fastRetryPolicy, NoteTakerClient } from "../../../src/notetaker/index.ts";
import { openStore, type Store } from "../../../src/store/index.ts";
import { createEmulator, type Emulator } from "../../../support/emulator/create-emulator.ts";
import { recordingBytes } from "../../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../../support/fakes/recording-gateway.ts";
import { eventually } from "../../../support/helpers/eventually.ts";
import { origin, source, testJobs } from "../../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../../support/helpers/temp-files.ts";

let emulator: Emulator;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let jobs: ReturnType<typeof testJobs> | undefined;

beforeAll(async () => {
  [emulator, temp] = await Promise.all([createEmulator(), makeTempDir("mn-retries-")]);
});
afterAll(async () => {
  await emulator.close();
  await temp.cleanup();
});
beforeEach(async () => {
  emulator.reset();
  emulator.knobs.noteMinChars = 1500;
  store = await openStore("memory://");
});
afterEach(async () => {
  await jobs?.runner.stop(1000);
  await store.close();
});

/** testJobs' failure policy (support/helpers/jobs-kit.ts). */
const MAX_ATTEMPTS = 3;

type Failing = "downloadSource" | "postNotePart" | "uploadDocx";

/** Runs one job whose `failing` Slack call always fails transiently (say Slack answers 503). */
async function runWithFailing(failing: Failing) {
  const slack = new RecordingGateway({
    sourcePath: await temp.file("rec.m4a", recordingBytes("rec.m4a")),
  });
  const calls: Record<Failing, number> = { downloadSource: 0, postNotePart: 0, uploadDocx: 0 };
  const fail = (name: Failing) => {
    calls[name]++;
    if (name === failing) throw new SlackPortError("Slack answered 503", { transient: true });
  };
  const gateway: SlackPort = {
    showStatus: (job) => slack.showStatus(job),
    splitNote: (markdown) => slack.splitNote(markdown),
    findDelivered: (job) => slack.findDelivered(job),
    downloadSource: async (job, dest, signal, limits) => {
      fail("downloadSource");
      return slack.downloadSource(job, dest, signal, limits);
    },
    postNotePart: async (job, text, index, total) => {
      if (index === 1) fail("postNotePart");
      return slack.postNotePart(job, text, index, total);
    },
    uploadDocx: async (job, path) => {
      fail("uploadDocx");
      return slack.uploadDocx(job, path);
    },
    uploadTranscript: (job, dialog, map) => slack.uploadTranscript(job, dialog, map),
    deleteFile: (job, fileId) => slack.deleteFile(job, fileId),
    createCanvas: (job, markdown) => slack.createCanvas(job, markdown),
    editCanvas: (job, id, markdown) => slack.editCanvas(job, id, markdown),
    shareCanvas: (job, id) => slack.shareCanvas(job, id),
    findCanvas: (job) => slack.findCanvas(job),
    review: slack.review,
  };
  const client = new NoteTakerClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.apiKey,
    retryPolicy: fastRetryPolicy,
  });
  // maxAttempts 3, waits of 5–20 ms (jobs-kit): a job that fails, fails within ~100 ms.
  jobs = testJobs({ store, client, gateway, tempDir: temp.dir });
  await jobs.runner.start();
  const started = await jobs.service.start({ origin: origin(), source: source(), options: {} });
  if (started.status !== "created") throw new Error(started.status);
  const service = jobs.service;
  const id = started.job.id;
  const read = async (): Promise<Job | undefined> => {
    const job = await service.get(id);
    if (job?.stage === "naming" && job.wakeAt === undefined) await service.skipNaming(id);
    return job;
  };
  // Until the job fails, or tries a fourth time: an endless retry shows as a fourth call,
  // however slow the machine (the wait's ceiling only catches a job that hangs).
  const final = await eventually(
    read,
    (job) => job?.stage === "failed" || calls[failing] > MAX_ATTEMPTS,
    { timeoutMs: 30_000, what: `the job to fail or call ${failing} again` },
  );
  return { final, calls };
}

const failureOf = (job: Job | undefined) =>
  job?.stage === "failed" ? job.failure.code : undefined;

describe("a delivery call that keeps failing transiently", () => {
  it("(control) a failing download fails the job after maxAttempts", async () => {
    const { final, calls } = await runWithFailing("downloadSource");
    expect({ stage: final?.stage, failure: failureOf(final), calls: calls.downloadSource }).toEqual(
      {
        stage: "failed",
        failure: "slack_unavailable",
        calls: 3,
      },
    );
  });

  // Regression: `delivery_reconciled` once reset `attempts` to 0, and every retry of a failed
  // post starts with a reconcile (the `postingPart` intent is still set), so the job retried
  // forever. Reading the thread is no progress: `attempts` must survive it
  // (engine/delivering.ts).
  it("a failing note part fails the job after maxAttempts", async () => {
    const { final, calls } = await runWithFailing("postNotePart");
    expect({ stage: final?.stage, failure: failureOf(final), calls: calls.postNotePart }).toEqual({
      stage: "failed",
      failure: "slack_unavailable",
      calls: 3,
    });
  });

  // Regression: the same endless retry, through the `uploadingDocx` intent.
  it("a failing DOCX upload fails the job after maxAttempts", async () => {
    const { final, calls } = await runWithFailing("uploadDocx");
    expect({ stage: final?.stage, failure: failureOf(final), calls: calls.uploadDocx }).toEqual({
      stage: "failed",
      failure: "slack_unavailable",
      calls: 3,
    });
  });
});
