import { copyFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../src/jobs/index.ts";
import { NoteTakerAuthError } from "../../src/notetaker/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { origin, source, testJobs, waitForStage } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/*
 * The relay: a recording that goes to the Note Service as it is is uploaded while it is
 * downloaded; whatever goes wrong with that upload, the finished download is sent instead.
 */

const FIXTURE = join(import.meta.dirname, "../fixtures/audio/tone.m4a");

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let client: ScriptedNoteTaker;
let jobs: ReturnType<typeof testJobs> | undefined;

beforeEach(async () => {
  temp = await makeTempDir();
  store = await openStore("memory://");
  client = new ScriptedNoteTaker();
});
afterEach(async () => {
  await jobs?.runner.stop(100);
  await store.close();
  await temp.cleanup();
});

/** Runs one job of the fixture, Slack stating `statedSize`, until it waits for names. */
async function run(statedSize?: number): Promise<Job | undefined> {
  const sourcePath = join(temp.dir, "slack-tone.m4a");
  await copyFile(FIXTURE, sourcePath);
  const size = statedSize ?? (await stat(sourcePath)).size;
  jobs = testJobs({
    store,
    client,
    gateway: new RecordingGateway({ sourcePath }),
    tempDir: temp.dir,
  });
  await jobs.runner.start();
  const result = await jobs.service.start({
    origin: origin(),
    source: source({ filename: "tone.m4a", size }),
    options: {},
  });
  if (result.status !== "created") throw new Error(result.status);
  return waitForStage(jobs.service.get.bind(jobs.service), result.job.id, "naming", "failed");
}

const tempFiles = () => readdir(join(temp.dir, "jobs")).catch(() => []);

describe("the relay of a recording while it downloads", () => {
  it("uploads the recording as it arrives, once, with the intent stored first", async () => {
    const job = await run();
    expect(job?.stage).toBe("naming");
    expect(client.calls).toMatchObject({ relayAudio: 1, submitAudio: 1 });
    expect(client.audioNames).toEqual(["tone.m4a"]);
    expect(await tempFiles()).toEqual([]);
  });

  it("sends the finished download from disk when the upload during the download fails", async () => {
    client.relayAudio = async () => {
      throw new Error("connection reset");
    };
    const job = await run();
    expect(job?.stage).toBe("naming");
    expect(client.calls).toMatchObject({ relayAudio: 0, submitAudio: 1 });
  });

  it("fails the job when the service refuses the key: sending from disk could not help", async () => {
    client.relayAudio = async () => {
      throw new NoteTakerAuthError("The API key was refused.", { status: 401 });
    };
    const job = await run();
    expect(job).toMatchObject({ stage: "failed", failure: { code: "auth" } });
    expect(client.calls.submitAudio).toBe(0);
  });

  it.each([
    ["longer", 1],
    ["shorter", -1],
  ])(
    "never completes an upload when the download is %s than Slack said: the disk copy goes",
    async (_, delta) => {
      const actual = (await stat(FIXTURE)).size;
      const job = await run(actual + delta);
      // The relay refused to finish the body; the job went on from the downloaded copy.
      expect(job?.stage).toBe("naming");
      expect(client.calls).toMatchObject({ relayAudio: 0, submitAudio: 1 });
    },
  );
});
