/**
 * A person's command lands when the store fails right after recording it: taking the job's
 * lease to apply it at once throws, and making the job due (the kick) fails once. The command
 * is recorded, so the person is told it is done; the kick is tried again until the store takes
 * it, and the runner applies the command.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Store } from "../../src/store/index.ts";
import { openMemoryStore } from "../../src/store/sqlite-store.ts";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { RecordingGateway } from "../../support/fakes/recording-gateway.ts";
import { ScriptedNoteTaker } from "../../support/fakes/scripted-note-taker.ts";
import { origin, source, testJobs, waitForStage } from "../../support/helpers/jobs-kit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let jobs: ReturnType<typeof testJobs> | undefined;

beforeEach(async () => {
  temp = await makeTempDir("mn-command-faults-");
  store = openMemoryStore({ keyPrefix: "command-faults", sweepIntervalMs: 0 });
});
afterEach(async () => {
  await jobs?.runner.stop(100);
  await store.close();
  await temp.cleanup();
});

it("applies a Skip whose lease and kick the store failed, once it answers", async () => {
  const sourcePath = await temp.file("rec.m4a", recordingBytes("rec.m4a"));
  const faults = { lease: 0, schedule: 0 };
  const acquireLease: Store["acquireLease"] = async (key, ttlMs) => {
    if (key.startsWith("job:") && faults.lease > 0) {
      faults.lease -= 1;
      throw new Error("the store failed (lease)");
    }
    return store.acquireLease(key, ttlMs);
  };
  const schedule: Store["schedule"] = async (id, at) => {
    if (faults.schedule > 0) {
      faults.schedule -= 1;
      throw new Error("the store failed (schedule)");
    }
    return store.schedule(id, at);
  };
  const failing = new Proxy(store, {
    get(target, name) {
      if (name === "acquireLease") return acquireLease;
      if (name === "schedule") return schedule;
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  jobs = testJobs({
    store: failing,
    client: new ScriptedNoteTaker(),
    gateway: new RecordingGateway({ sourcePath }),
    tempDir: temp.dir,
  });
  await jobs.runner.start();
  const started = await jobs.service.start({ origin: origin(), source: source(), options: {} });
  if (started.status !== "created") throw new Error(started.status);
  const id = started.job.id;
  const get = jobs.service.get.bind(jobs.service);
  await waitForStage(get, id, "naming");
  await jobs.runner.settled();

  faults.lease = 1;
  faults.schedule = 1;
  const skipped = await jobs.service.skipNaming(id);
  expect(skipped.ok).toBe(true);
  const done = await waitForStage(get, id, "done", "failed");
  expect(done?.stage).toBe("done");
  expect(faults).toEqual({ lease: 0, schedule: 0 });
});
