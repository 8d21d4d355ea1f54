import { copyFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { origin, source, testJobs, waitForStage } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const FIXTURES = join(import.meta.dirname, "../fixtures/audio");

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let client: ScriptedNoteTaker;
let gateway: RecordingGateway;
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

/**
 * Runs one job whose Slack download holds the fixture `fixture`, under the name `filename`,
 * until it fails or waits for names.
 */
async function run(fixture: string, filename: string): Promise<Job | undefined> {
  const sourcePath = join(temp.dir, `slack-${fixture}`);
  await copyFile(join(FIXTURES, fixture), sourcePath);
  gateway = new RecordingGateway({ sourcePath });
  jobs = testJobs({ store, client, gateway, tempDir: temp.dir });
  await jobs.runner.start();
  const result = await jobs.service.start({
    origin: origin(),
    source: source({ filename }),
    options: {},
  });
  if (result.status !== "created") throw new Error(result.status);
  return waitForStage(jobs.service.get.bind(jobs.service), result.job.id, "failed", "naming");
}

const tempFiles = () => readdir(join(temp.dir, "jobs")).catch(() => []);

describe("the downloaded recording's content check", () => {
  it("fails a text file named notes.mp3 after its download, before any Note Service call", async () => {
    const job = await run("notes.txt", "notes.mp3");
    expect(job).toMatchObject({
      stage: "failed",
      failedStage: "downloading",
      failure: { code: "not_audio" },
      retryable: false,
    });
    expect(gateway.of(job?.id ?? "", "download")).toHaveLength(1);
    expect(client.calls.submitAudio).toBe(0);
    expect(client.calls.audioPolls).toEqual([]);
    expect(gateway.of(job?.id ?? "", "status").at(-1)).toMatchObject({
      stage: "failed",
      detail: "not_audio",
    });
    // The downloaded copy is gone.
    expect(await tempFiles()).toEqual([]);
  });

  it.each([
    ["screenshot.png", "standup.m4a"],
    ["agenda.pdf", "standup.wav"],
    ["minutes.docx", "standup.mp4"],
    ["photo.heic", "standup.m4a"],
  ])("fails %s named %s the same way", async (fixture, filename) => {
    const job = await run(fixture, filename);
    expect(job?.stage === "failed" && job.failure).toEqual({ code: "not_audio" });
    expect(client.calls.submitAudio).toBe(0);
    expect(await tempFiles()).toEqual([]);
  });

  it("fails audio in a container the Note Service does not take, saying which one", async () => {
    const job = await run("tone.aiff", "board.wav");
    expect(job).toMatchObject({
      stage: "failed",
      failedStage: "downloading",
      failure: { code: "unsupported_container", detail: "AIFF" },
      retryable: false,
    });
    expect(client.calls.submitAudio).toBe(0);
    expect(await tempFiles()).toEqual([]);
  });

  it("sends a real recording on to the Note Service, whatever its extension", async () => {
    // A QuickTime file named .m4a: the same box structure, so it goes through.
    const job = await run("tone.mov", "standup.m4a");
    expect(job?.stage).toBe("naming");
    expect(client.calls.submitAudio).toBe(1);
  });
});
