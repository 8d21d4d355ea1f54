import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JobIn, MediaPort } from "../../src/jobs/index.ts";
import { createPreparer } from "../../src/media/preparer.ts";
import { findMediaTools } from "../../src/media/tools.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { origin, source, testJobs, waitForStage } from "../../support/helpers/jobs-kit.ts";
import { FFMPEG_AVAILABLE, ffmpeg, movie } from "../../support/helpers/media-files.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

describe.skipIf(!FFMPEG_AVAILABLE)("FFmpeg (on PATH)", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let store: Store;
  let client: ScriptedNoteTaker;
  let media: MediaPort;
  let jobs: ReturnType<typeof testJobs> | undefined;

  beforeEach(async () => {
    temp = await makeTempDir("mn-preparing-");
    store = await openStore("memory://");
    client = new ScriptedNoteTaker();
    const tools = await findMediaTools({});
    if (tools === undefined) throw new Error("FFmpeg is needed for these tests");
    media = createPreparer(tools, {
      concurrency: 1,
      timeoutMs: 60_000,
      maxHours: 8,
      logger: pino({ level: "silent" }),
    });
  });
  afterEach(async () => {
    await jobs?.runner.stop(100);
    await store.close();
    await temp.cleanup();
  });

  /** A job in `preparing`, due now, its download at `tempPath`. */
  const preparingJob = (id: string, tempPath: string): JobIn<"preparing"> => {
    const now = Date.now();
    return {
      id,
      stage: "preparing",
      tempPath,
      createdAt: now,
      updatedAt: now,
      stageStartedAt: now,
      wakeAt: now,
      attempts: 0,
      origin: origin(),
      source: source({ filename: "standup.mov", size: 1 }),
      options: {},
    };
  };

  const tempFiles = () => readdir(join(temp.dir, "jobs")).catch(() => []);

  /** A three-second movie with sound, as Slack would serve it. */
  const makeMovie = (path: string) => movie(path, { seconds: 3, hz: 440, audio: "aac" });

  describe("the preparing stage", () => {
    it("after a restart mid-way, starts over from the kept download and cleans the partial file", async () => {
      const movie = join(temp.dir, "slack-standup.mov");
      await makeMovie(movie);
      const gateway = new RecordingGateway({ sourcePath: movie });
      jobs = testJobs({ store, client, gateway, tempDir: temp.dir, overrides: { media } });
      // The job as a crash left it: in `preparing`, its download kept, FFmpeg's output half written.
      const id = "job-restarted-mid-prepare";
      const download = join(temp.dir, "jobs", id, "source.audio");
      const partial = join(temp.dir, "jobs", id, "prepared.ogg.part");
      await jobs.runner.start();
      await mkdir(join(temp.dir, "jobs", id), { mode: 0o700 });
      await ffmpeg("-i", movie, "-c", "copy", "-f", "mov", download);
      await writeFile(partial, "half of an ogg file");
      await jobs.repo.create({ ...preparingJob(id, download), fraction: 0.4 });
      const job = await waitForStage(jobs.service.get.bind(jobs.service), id, "naming", "failed");
      expect(job?.stage).toBe("naming");
      expect(client.audioNames).toEqual(["standup.ogg"]);
      // Not downloaded again: the kept download was prepared.
      expect(gateway.records.filter((r) => r.op === "download")).toEqual([]);
      // The half-written file, the download, the prepared audio and the folder are all gone.
      expect(await tempFiles()).toEqual([]);
    });

    it("downloads again, into the job's own folder, what an earlier version kept beside other jobs' files", async () => {
      const movie = join(temp.dir, "slack-standup.mov");
      await makeMovie(movie);
      const gateway = new RecordingGateway({ sourcePath: movie });
      jobs = testJobs({ store, client, gateway, tempDir: temp.dir, overrides: { media } });
      const id = "job-from-an-earlier-version";
      const flat = join(temp.dir, "jobs", `${id}.audio`);
      await jobs.runner.start();
      await ffmpeg("-i", movie, "-c", "copy", "-f", "mov", flat);
      await jobs.repo.create(preparingJob(id, flat));
      const job = await waitForStage(jobs.service.get.bind(jobs.service), id, "naming", "failed");
      expect(job?.stage).toBe("naming");
      expect(gateway.records.filter((r) => r.op === "download")).toHaveLength(1);
      expect(client.audioNames).toEqual(["standup.ogg"]);
      expect(await tempFiles()).toEqual([]);
    });

    it("without FFmpeg any more, fails the job with a sentence rather than waiting forever", async () => {
      const movie = join(temp.dir, "slack.mov");
      await writeFile(movie, "x");
      jobs = testJobs({
        store,
        client,
        gateway: new RecordingGateway({ sourcePath: movie }),
        tempDir: temp.dir,
      });
      await jobs.runner.start();
      await jobs.repo.create(preparingJob("job-no-ffmpeg", movie));
      const job = await waitForStage(
        jobs.service.get.bind(jobs.service),
        "job-no-ffmpeg",
        "failed",
      );
      expect(job).toMatchObject({ failure: { code: "prepare_failed", detail: "no_ffmpeg" } });
    });
  });
});
