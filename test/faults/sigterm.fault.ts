/**
 * SIGTERM at every stage (queued, downloading, preparing, transcribing, naming, writing,
 * delivering): the bot stops cleanly (exit 0), is started again on the same store, and
 * resumes its own interrupted job within 5 s of the restart; the job then ends done with one
 * copy of each post. Each stage is held by what the job waits on there (a slot, Slack's file
 * server, FFmpeg, the Note Service, a person, Slack's answers), released once the bot stopped.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNEL, noteParts, statusMessage } from "../../support/e2e/stack.ts";
import { driveToEnd, skipOnce } from "../../support/faults/drive.ts";
import { type FaultWorld, startFaultWorld } from "../../support/faults/fault-world.ts";
import { heldFfmpeg } from "../../support/faults/held-ffmpeg.ts";
import { expectEachOnce } from "../../support/faults/ledger.ts";
import { type Upload, upload } from "../../support/faults/people.ts";
import { changed, jobOf, reached } from "../../support/faults/stages.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { FFMPEG_AVAILABLE, movie } from "../../support/helpers/media-files.ts";
import { HAS_REDIS_SERVER } from "../../support/helpers/redis-server.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/** The bound: from the restart (spawn) until the interrupted job moves on. */
const RESUME_BOUND_MS = 5_000;
/** Long enough that a held stage is still held when SIGTERM arrives. */
const HELD_MS = 10 * 60_000;
/** Slack's answer to each post while delivering: a long note's parts outlast the 10 s stop. */
const SLOW_POST_MS = 4_000;

let world: FaultWorld;
let tools: Awaited<ReturnType<typeof makeTempDir>>;
let ffmpeg: Awaited<ReturnType<typeof heldFfmpeg>>;
beforeAll(async () => {
  tools = await makeTempDir("mn-fault-tools-");
  ffmpeg = await heldFfmpeg(tools.dir);
});
afterAll(() => tools?.cleanup());

/** A job held in a stage, and how to let it go on. */
interface Held {
  uploads: Upload[];
  jobId: string;
  release(): Promise<void> | void;
  /** Done after the restart (a person's click, for naming). */
  afterRestart?: () => Promise<void>;
  /**
   * Whether the job's step has started again since `wallMs` (ms since the epoch); default:
   * the job left the stage (a step that ends quickly once it runs again).
   */
  resumedSince?: (wallMs: number) => Promise<boolean>;
}

const knobs = () => world.emulator.knobs;

const HOLDS: Record<string, (tag: string) => Promise<Held>> = {
  async queued(tag) {
    knobs().audioDurationMs = HELD_MS;
    const holder = upload(world, `${tag}-holder.m4a`);
    await reached(world, await jobOf(world, holder), "transcribing");
    const waiting = upload(world, `${tag}.m4a`);
    const jobId = await jobOf(world, waiting);
    await eventually(
      () => statusMessage(world.fake.thread(CHANNEL, waiting.ts))?.text ?? "",
      (text) => text.includes("waiting its turn"),
      { what: "the second job waiting its turn" },
    );
    return {
      uploads: [holder, waiting],
      jobId,
      release: () => {
        knobs().audioDurationMs = 300;
      },
    };
  },
  async downloading(tag) {
    world.fake.knobs.downloadDelayMs = HELD_MS;
    const u = upload(world, `${tag}.m4a`);
    const jobId = await jobOf(world, u);
    await reached(world, jobId, "downloading");
    return {
      uploads: [u],
      jobId,
      release: () => {
        world.fake.knobs.downloadDelayMs = 0;
      },
    };
  },
  async preparing(tag) {
    const path = `${tools.dir}/${tag}.mov`;
    await movie(path, { seconds: 20, hz: 440, audio: "aac" });
    await ffmpeg.hold();
    const u = upload(world, `${tag}.mov`, { bytes: await readFile(path) });
    const jobId = await jobOf(world, u);
    await reached(world, jobId, "preparing");
    return {
      uploads: [u],
      jobId,
      release: () => ffmpeg.release(),
      // FFmpeg started again: the preparation's own length is not the restart's.
      resumedSince: async (wallMs) => ((await ffmpeg.lastRun()) ?? 0) >= wallMs,
    };
  },
  async transcribing(tag) {
    knobs().audioDurationMs = HELD_MS;
    const u = upload(world, `${tag}.m4a`);
    const jobId = await jobOf(world, u);
    await reached(world, jobId, "transcribing");
    return {
      uploads: [u],
      jobId,
      release: () => {
        knobs().audioDurationMs = 300;
      },
    };
  },
  async naming(tag) {
    const u = upload(world, `${tag}.m4a`);
    const jobId = await jobOf(world, u);
    await reached(world, jobId, "naming");
    return {
      uploads: [u],
      jobId,
      release: () => {},
      afterRestart: async () => void (await skipOnce(world, u)),
    };
  },
  async writing(tag) {
    knobs().noteDurationMs = HELD_MS;
    const u = upload(world, `${tag}.m4a`);
    const jobId = await jobOf(world, u);
    await skipOnce(world, u);
    await reached(world, jobId, "writing");
    return {
      uploads: [u],
      jobId,
      release: () => {
        knobs().noteDurationMs = 300;
      },
    };
  },
  async delivering(tag) {
    // A note of several parts, each post answered slowly: SIGTERM lands between parts.
    knobs().noteMinChars = 40_000;
    const u = upload(world, `${tag}.m4a`);
    const jobId = await jobOf(world, u);
    await reached(world, jobId, "naming");
    world.fake.knobs.latencyMs = { "chat.postMessage": SLOW_POST_MS };
    await skipOnce(world, u);
    await reached(world, jobId, "delivering");
    await eventually(
      () => noteParts(world.fake.thread(CHANNEL, u.ts)).length,
      (n) => n >= 1,
      { what: "the first note part posted", timeoutMs: 30_000 },
    );
    return {
      uploads: [u],
      jobId,
      release: () => {
        world.fake.knobs.latencyMs = undefined;
        knobs().noteMinChars = 0;
      },
    };
  },
};

const STORES = [
  { store: "sqlite", enabled: true },
  { store: "redis", enabled: HAS_REDIS_SERVER },
] as const;

describe.each(STORES)("SIGTERM at every stage, then a restart, on $store", ({ store, enabled }) => {
  beforeAll(async () => {
    if (!enabled) return;
    // One recording transcribed at a time: a second one waits in `queued`.
    world = await startFaultWorld({
      store,
      env: { MAX_ACTIVE_JOBS: "1", FFMPEG_PATH: ffmpeg.path },
    });
    await world.start();
  });
  afterAll(() => world?.stop());

  for (const stage of Object.keys(HOLDS)) {
    const skip = !enabled || (stage === "preparing" && !FFMPEG_AVAILABLE);
    it.skipIf(skip)(`${stage}: resumes within 5 s, each post once`, async () => {
      const hold = HOLDS[stage];
      if (hold === undefined) throw new Error(stage);
      const held = await hold(`sigterm-${store}-${stage}`);
      const stopping = performance.now();
      expect(await world.stopBot("SIGTERM"), "a clean stop").toBe(0);
      const stopMs = Math.round(performance.now() - stopping);
      await held.release();
      const restarted = performance.now();
      const restartedWall = Date.now();
      const bot = await world.start();
      await held.afterRestart?.();
      const resumed = held.resumedSince ?? (async () => changed(bot, held.jobId, "from", stage));
      await eventually(
        () => resumed(restartedWall),
        (moved) => moved,
        {
          what: `the ${stage} job moving on after the restart`,
          timeoutMs: RESUME_BOUND_MS * 3,
          intervalMs: 5,
          context: () => bot.lines.slice(-20).join("\n"),
        },
      );
      const resumeMs = Math.round(performance.now() - restarted);
      console.info(
        `FAULT sigterm-${store}-${stage}: stopped in ${stopMs} ms, resumed ${resumeMs} ms after the restart (bound ${RESUME_BOUND_MS} ms)`,
      );
      expect(resumeMs).toBeLessThan(RESUME_BOUND_MS);
      await driveToEnd(world, held.uploads, 60_000);
      expectEachOnce(world, held.uploads);
    });
  }
});
