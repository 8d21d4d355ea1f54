import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type Job,
  type KnownJob,
  RecentJobs,
  type StoreResetPort,
  StoreResetWatch,
} from "../../src/jobs/index.ts";
import { WorkspaceData } from "../../src/jobs/persistence/workspace-data.ts";
import type { EpochCheck } from "../../src/store/index.ts";
import { openMemoryStore } from "../../src/store/sqlite-store.ts";
import { done, queued, T0 } from "../slack/views/fixtures.ts";

const HOUR = 3_600_000;

/** A running job of `user`, for `file`, whose status message is `statusTs`. */
function running(id: string, user: string, file: string, statusTs?: string): Job {
  return {
    ...queued,
    id,
    origin: { ...queued.origin, userId: user },
    source: { ...queued.source, fileId: `F-${id}`, filename: file },
    ...(statusTs === undefined ? {} : { statusTs }),
  };
}

/** A watch over a memory store whose epoch check answers what the test says. */
function world(records: Map<string, Job>) {
  let now = T0;
  let next: EpochCheck | Error = "same";
  const store = openMemoryStore({ keyPrefix: "t" });
  store.checkEpoch = async () => {
    const found = next;
    next = "same";
    if (found instanceof Error) throw found;
    return found;
  };
  const recent = new RecentJobs({ now: () => now });
  const told: KnownJob[] = [];
  const threads = vi.fn(async (_origin: Job["origin"], fileId: string) => fileId === "F-seen");
  const port: StoreResetPort = {
    tellJobLost: async (job) => void told.push(job),
    threadHasStatusFor: threads,
  };
  const discard = vi.fn(async (_id: string) => undefined);
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: "debug" },
    {
      write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }),
    },
  );
  const watch = new StoreResetWatch({
    store,
    repo: { get: async (id) => records.get(id) },
    recent,
    runner: { discard },
    workspaces: new WorkspaceData(store, logger),
    port,
    logger,
    now: () => now,
  });
  return {
    watch,
    store,
    recent,
    told,
    threads,
    discard,
    lines,
    loseData: () => {
      next = "reset";
    },
    failCheck: (error: Error) => {
      next = error;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("StoreResetWatch", () => {
  const watches: StoreResetWatch[] = [];
  afterEach(async () => {
    await Promise.all(watches.splice(0).map((w) => w.stop()));
  });

  it("tells the people of the jobs whose records are gone, once, and leaves the others alone", async () => {
    const records = new Map<string, Job>();
    const w = world(records);
    watches.push(w.watch);
    const kept = running("kept", "U1", "kept.m4a", "1.0002");
    const lostA = running("lost-a", "U1", "standup.m4a", "1.0003");
    const lostB = running("lost-b", "U2", "retro.m4a");
    for (const job of [kept, lostA, lostB, done()]) w.recent.note(job);
    records.set("kept", kept); // saved again after the loss: not lost
    await w.watch.start();
    expect(w.watch.recentResetAt()).toBeUndefined();
    w.loseData();
    await w.watch.check();
    await w.watch.stop();
    expect(w.told.map((job) => job.id).sort()).toEqual(["lost-a", "lost-b"]);
    expect(w.told.find((job) => job.id === "lost-a")?.statusTs).toBe("1.0003");
    expect(w.discard.mock.calls.map(([id]) => id).sort()).toEqual(["lost-a", "lost-b"]);
    expect(w.lines.filter((l) => l.level === 50)).toHaveLength(1);
    expect(w.watch.recentResetAt()).toBe(T0);
    // Told once: a later look finds the new epoch, and the lost jobs are forgotten.
    await w.watch.check();
    expect(w.told).toHaveLength(2);
    expect(w.recent.list().map((job) => job.id)).toEqual(["kept"]);
    const { teamId } = queued.origin;
    expect(await w.watch.noticeFor(teamId, "U1")).toEqual({ at: T0, files: ["standup.m4a"] });
    expect(await w.watch.noticeFor(teamId, "U2")).toEqual({ at: T0, files: ["retro.m4a"] });
    expect(await w.watch.noticeFor(teamId, "U3")).toBeUndefined();
    // Noted under the workspace: an uninstall deletes them with the rest.
    expect(await w.store.listMembers(`team:${teamId}`)).toEqual([
      `meta:store-reset:${teamId}:U1`,
      `meta:store-reset:${teamId}:U2`,
    ]);
    w.advance(15 * 60_000);
    expect(w.watch.recentResetAt()).toBeUndefined();
    w.advance(3 * 24 * HOUR);
    expect(await w.watch.noticeFor(teamId, "U1")).toBeUndefined();
  });

  it("has an upload look in its thread only within an hour of a loss, and never stops one on a thread it cannot read", async () => {
    const w = world(new Map());
    watches.push(w.watch);
    const origin = queued.origin;
    const seen = { ...queued.source, fileId: "F-seen" };
    const other = { ...queued.source, fileId: "F-new" };
    await w.watch.start();
    expect(await w.watch.alreadyStarted(origin, seen)).toBe(false);
    expect(w.threads).not.toHaveBeenCalled();
    // The loss is found on the upload's own look at the epoch, not later.
    w.loseData();
    expect(await w.watch.alreadyStarted(origin, seen)).toBe(true);
    expect(await w.watch.alreadyStarted(origin, other)).toBe(false);
    w.threads.mockRejectedValueOnce(new Error("conversations.replies failed"));
    expect(await w.watch.alreadyStarted(origin, seen)).toBe(false);
    w.advance(HOUR);
    expect(await w.watch.alreadyStarted(origin, seen)).toBe(false);
    expect(w.threads).toHaveBeenCalledTimes(3);
  });

  it("keeps looking when the store cannot be read, and reports no loss for it", async () => {
    const w = world(new Map());
    watches.push(w.watch);
    w.failCheck(new Error("Redis GET epoch timed out after 2000 ms"));
    await w.watch.start();
    expect(await w.watch.check()).toBe("same");
    expect(w.watch.recentResetAt()).toBeUndefined();
  });
});

describe("RecentJobs", () => {
  it("keeps the unfinished jobs last seen, within its capacity and age", () => {
    let now = T0;
    const recent = new RecentJobs({ capacity: 2, maxAgeMs: HOUR, now: () => now });
    recent.note(running("a", "U1", "a.m4a"));
    recent.note(running("b", "U1", "b.m4a"));
    recent.note(running("a", "U1", "a.m4a")); // seen again: now the newest
    recent.note(running("c", "U1", "c.m4a"));
    expect(recent.list().map((job) => job.id)).toEqual(["a", "c"]);
    recent.note({ ...running("a", "U1", "a.m4a"), ...done(), id: "a" });
    expect(recent.list().map((job) => job.id)).toEqual(["c"]);
    now += HOUR + 1;
    expect(recent.list()).toEqual([]);
  });
});
