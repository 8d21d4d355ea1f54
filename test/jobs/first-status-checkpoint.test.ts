import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Job, type SlackPort, SlackPortError } from "../../src/jobs/index.ts";
import { fastRetryPolicy, NoteTakerClient } from "../../src/notetaker/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { createEmulator, type Emulator } from "../../support/emulator/create-emulator.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { origin, source, testJobs } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/*
 * The job layer's half of posting the first status message once: the intent is saved
 * before the post, and a later draw with no ts saved says an earlier post may be there.
 */

let emulator: Emulator;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let jobs: ReturnType<typeof testJobs> | undefined;
beforeAll(async () => {
  [emulator, temp] = await Promise.all([createEmulator(), makeTempDir("mn-status-")]);
  store = await openStore("memory://");
});
afterAll(async () => {
  await emulator.close();
  await store.close();
  await temp.cleanup();
});
afterEach(async () => {
  await jobs?.runner.stop(1000);
});

interface Draw {
  stage: Job["stage"];
  statusTs: string | undefined;
  /** The intent, in the job handed to the gateway and in the store at that moment. */
  intent: number | undefined;
  stored: number | undefined;
  mayExist: boolean | undefined;
}

describe("the first status post", () => {
  it("saves its intent first, and after a post of unknown outcome says one may exist", async () => {
    const slack = new RecordingGateway({
      sourcePath: await temp.file("rec.m4a", recordingBytes("rec.m4a")),
    });
    const draws: Draw[] = [];
    const showStatus = async (job: Job, _m?: unknown, _l?: unknown, mayExist?: boolean) => {
      const stored = (await jobs?.repo.get(job.id))?.statusPostingAt;
      const { stage, statusTs, statusPostingAt: intent } = job;
      draws.push({ stage, statusTs, intent, stored, mayExist });
      // The first post: Slack took it, its answer was lost.
      if (draws.length === 1) throw new SlackPortError("Slack answered 503", { transient: true });
      return slack.showStatus(job);
    };
    // The recording gateway in all else.
    const gateway = new Proxy(slack, {
      get: (target, name) => {
        if (name === "showStatus") return showStatus;
        const value: unknown = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as SlackPort;
    const client = new NoteTakerClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKey,
      retryPolicy: fastRetryPolicy,
    });
    jobs = testJobs({ store, client, gateway, tempDir: temp.dir });
    await jobs.runner.start();
    const started = await jobs.service.start({ origin: origin(), source: source(), options: {} });
    if (started.status !== "created") throw new Error(started.status);
    const service = jobs.service;
    const job = await eventually(
      () => service.get(started.job.id),
      (j) => j?.statusTs !== undefined,
    );
    const [first, second, third] = draws;
    expect(first).toMatchObject({ statusTs: undefined, mayExist: false });
    expect(first?.intent).toEqual(expect.any(Number));
    expect(first?.stored).toBe(first?.intent);
    expect(second).toMatchObject({ statusTs: undefined, intent: first?.intent, mayExist: true });
    // Once its ts is saved, the intent is gone and nothing is in doubt.
    expect(job?.statusPostingAt).toBeUndefined();
    if (third !== undefined) expect(third.mayExist).toBe(false);
  });
});
