/**
 * The delivering stage and what it asks of the gateway: the people to mention go to
 * `splitNote` (so the parts are measured as posted), and a canvas Slack refuses, for any
 * reason, never fails a delivered note — while trouble that passes is tried again within
 * the step's failure policy (engine/delivering.ts).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Job, type NotePerson, type SlackPort, SlackPortError } from "../../src/jobs/index.ts";
import { fastRetryPolicy, NoteTakerClient } from "../../src/notetaker/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { createEmulator, type Emulator } from "../../support/emulator/create-emulator.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { origin, source, testJobs } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

let emulator: Emulator;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let jobs: ReturnType<typeof testJobs> | undefined;

beforeAll(async () => {
  [emulator, temp] = await Promise.all([createEmulator(), makeTempDir("mn-delivering-")]);
});
afterAll(async () => {
  await emulator.close();
  await temp.cleanup();
});
beforeEach(async () => {
  emulator.reset();
  store = await openStore("memory://");
});
afterEach(async () => {
  await jobs?.runner.stop(1000);
  await store.close();
});

type CanvasCall = "createCanvas" | "shareCanvas";

/** How a canvas call fails: for good (an error Slack gives no reason to retry), or `n` times for now. */
type Failure = { call: CanvasCall } & ({ kind: "refused" } | { kind: "transient"; times: number });

/** Runs one job to its end (done or failed) with a gateway whose canvas calls fail as told. */
async function runJob(failure?: Failure, prepare?: (id: string) => Promise<void>) {
  const slack = new RecordingGateway({
    sourcePath: await temp.file("rec.m4a", recordingBytes("rec.m4a")),
  });
  const calls = { createCanvas: 0, shareCanvas: 0, split: [] as (readonly NotePerson[])[] };
  const maybeFail = (call: CanvasCall) => {
    calls[call]++;
    if (failure?.call !== call) return;
    if (failure.kind === "refused") {
      throw new SlackPortError("Slack canvas call failed: canvas_something_new", {
        transient: false,
      });
    }
    if (calls[call] <= failure.times) {
      throw new SlackPortError("Slack canvas call failed: ratelimited", { transient: true });
    }
  };
  const gateway: SlackPort = {
    showStatus: (job) => slack.showStatus(job),
    splitNote: (markdown, people = []) => {
      calls.split.push(people);
      return slack.splitNote(markdown);
    },
    findDelivered: (job) => slack.findDelivered(job),
    downloadSource: (job, dest, signal, limits) => slack.downloadSource(job, dest, signal, limits),
    postNotePart: (job, text, index, total) => slack.postNotePart(job, text, index, total),
    uploadDocx: (job, path) => slack.uploadDocx(job, path),
    uploadTranscript: (job, dialog, map) => slack.uploadTranscript(job, dialog, map),
    deleteFile: (job, fileId) => slack.deleteFile(job, fileId),
    createCanvas: async (job, markdown) => {
      maybeFail("createCanvas");
      return slack.createCanvas(job, markdown);
    },
    editCanvas: (job, id, markdown) => slack.editCanvas(job, id, markdown),
    shareCanvas: async (job, id) => {
      maybeFail("shareCanvas");
      return slack.shareCanvas(job, id);
    },
    findCanvas: (job) => slack.findCanvas(job),
    review: slack.review,
  };
  const client = new NoteTakerClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.apiKey,
    retryPolicy: fastRetryPolicy,
  });
  // maxAttempts 3, waits of 5–20 ms (jobs-kit).
  jobs = testJobs({ store, client, gateway, tempDir: temp.dir });
  await jobs.runner.start();
  const started = await jobs.service.start({ origin: origin(), source: source(), options: {} });
  if (started.status !== "created") throw new Error(started.status);
  const { service } = jobs;
  const id = started.job.id;
  await prepare?.(id);
  const read = async (): Promise<Job | undefined> => {
    const job = await service.get(id);
    if (job?.stage === "naming" && job.wakeAt === undefined) await service.skipNaming(id);
    return job;
  };
  const final = await eventually(read, (job) => job?.stage === "done" || job?.stage === "failed", {
    timeoutMs: 5000,
    orLast: true,
  });
  const parts = slack.records.filter((r) => r.op === "part" && r.jobId === id);
  return { final, calls, parts };
}

describe("a canvas Slack refuses", () => {
  it.each<CanvasCall>(["createCanvas", "shareCanvas"])(
    "in %s, for a reason no one listed: recorded once, the note delivered, the job done",
    async (call) => {
      const { final, calls, parts } = await runJob({ call, kind: "refused" });
      expect(final?.stage).toBe("done");
      expect(final?.canvasRefused).toBe("refused");
      expect(parts.length).toBeGreaterThan(0);
      // Not tried again: one refusal is the answer.
      expect(calls[call]).toBe(1);
      expect(final?.canvas?.url).toBeUndefined();
    },
  );

  it("for now only (rate limited): tried again within the step's policy, then made", async () => {
    const { final, calls } = await runJob({ call: "createCanvas", kind: "transient", times: 2 });
    expect(final?.stage).toBe("done");
    expect(final?.canvasRefused).toBeUndefined();
    expect(final?.canvas?.url).toEqual(expect.any(String));
    expect(calls.createCanvas).toBe(3);
  });

  it("for now, every time: the step's policy ends it as before, with Retry", async () => {
    const { final, calls } = await runJob({ call: "shareCanvas", kind: "transient", times: 99 });
    expect(final?.stage).toBe("failed");
    expect(final?.stage === "failed" && final.failure.code).toBe("slack_unavailable");
    expect(final?.stage === "failed" && final.retryable).toBe(true);
    expect(calls.shareCanvas).toBe(3);
  });
});

describe("the people named", () => {
  it("go to splitNote when the channel has people named on, so parts are measured as posted", async () => {
    const { final, calls } = await runJob(undefined, async (id) => {
      const services = jobs;
      const service = services?.service;
      const job = await service?.get(id);
      if (services === undefined || service === undefined || job === undefined) {
        throw new Error("no job");
      }
      const { teamId, channelId } = job.origin;
      await services.settings.set(teamId, channelId, { autoTranscribe: true, mentions: true });
      await eventually(
        () => service.get(id),
        (j) => j?.stage === "naming",
        { timeoutMs: 5000 },
      );
      const names = [
        { speakerId: "speaker_1", name: "Bob Tran" },
        { speakerId: "speaker_2", name: "Lan Pham" },
      ];
      await service.submitNames(id, names, { members: { speaker_1: "U0BOB0001" } });
    });
    expect(final?.stage).toBe("done");
    expect(calls.split.at(-1)).toEqual([{ name: "Bob Tran", userId: "U0BOB0001" }]);
  });
});
