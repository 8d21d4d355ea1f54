import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Job, JobRepository } from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { origin, source } from "../helpers/jobs-kit.ts";
import { makeTempDir } from "../helpers/temp-files.ts";

const job = (id: string, stage: "queued" | "canceled" = "queued"): Job => {
  const base = {
    id,
    createdAt: 1,
    updatedAt: 1,
    stageStartedAt: 1,
    attempts: 0,
    origin: origin(),
    source: source(),
    options: {},
  };
  return stage === "queued"
    ? { ...base, stage, wakeAt: 1 }
    : { ...base, stage, canceledStage: "queued", canceledBy: "U1", finishedAt: 2 };
};

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
beforeEach(async () => {
  temp = await makeTempDir();
  store = await openStore(`sqlite://${temp.dir}/jobs.sqlite`);
});
afterEach(async () => {
  await store.close();
  await temp.cleanup();
});

describe("JobRepository", () => {
  it("expires jobs, their dialogs and notes after the retention period", async () => {
    const repo = new JobRepository(store, { retentionMs: 80, logger: pino({ level: "silent" }) });
    await repo.create(job("j1"));
    expect(await repo.get("j1")).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await repo.get("j1")).toBeUndefined();
  });

  it("keeps the active index in step with the stage", async () => {
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    await repo.create(job("j1"));
    expect(await repo.listActiveIds()).toEqual(["j1"]);
    await repo.save(job("j1", "canceled"));
    expect(await repo.listActiveIds()).toEqual([]);
  });

  it("treats a damaged record as gone instead of trusting it", async () => {
    const repo = new JobRepository(store, {
      retentionMs: 60_000,
      logger: pino({ level: "silent" }),
    });
    await store.set("jobs", "bad", { id: "bad", stage: "transcribing", audio: "??" });
    expect(await repo.get("bad")).toBeUndefined();
  });
});
