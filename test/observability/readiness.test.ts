import type { StatsFs } from "node:fs";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { diskRoomProbe } from "../../src/observability/app-readiness.ts";
import { createReadiness, type ReadinessOptions } from "../../src/observability/readiness.ts";

const TIMINGS = {
  storeEveryMs: 1_000,
  slackOkEveryMs: 30_000,
  slackFailedEveryMs: 5_000,
  diskEveryMs: 10_000,
  deadlineMs: 2_000,
};

/** A check the test answers by hand: each call waits until `pass` or `fail` is called. */
function manualCheck() {
  const calls: { resolve: () => void; reject: (error: Error) => void }[] = [];
  return {
    calls,
    run: () =>
      new Promise<void>((resolve, reject) => {
        calls.push({ resolve, reject });
      }),
  };
}

describe("readiness", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const options = (over: Partial<ReadinessOptions> = {}): ReadinessOptions => ({
    probeStore: async () => undefined,
    slackAuthTest: async () => undefined,
    diskHasRoom: async () => true,
    logger: pino({ level: "silent" }),
    timings: TIMINGS,
    ...over,
  });

  it("answers from the checks' last results at once, while a check hangs, and counts a check past its deadline as failed", async () => {
    const store = manualCheck();
    const readiness = createReadiness(options({ probeStore: store.run }));
    const started = readiness.start();
    await vi.advanceTimersByTimeAsync(0);
    store.calls[0]?.resolve();
    await started;
    expect(readiness.report()).toEqual({ ok: true, store: true, slack: true, disk: true });
    // The next probe hangs: the report keeps the last result until its deadline passes.
    await vi.advanceTimersByTimeAsync(TIMINGS.storeEveryMs);
    expect(store.calls).toHaveLength(2);
    expect(readiness.report().ok).toBe(true);
    await vi.advanceTimersByTimeAsync(TIMINGS.deadlineMs);
    expect(readiness.report()).toEqual({ ok: false, store: false, slack: true, disk: true });
    // The store takes writes again: ready at the next probe.
    await vi.advanceTimersByTimeAsync(TIMINGS.storeEveryMs);
    store.calls[2]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(readiness.report().ok).toBe(true);
    readiness.stop();
  });

  it("asks Slack rarely while it answers, often while it does not, and at once when a call failed as if it were down", async () => {
    let slackUp = true;
    const slackAuthTest = vi.fn(async () => {
      if (!slackUp) throw new Error("HTTP 503");
    });
    const readiness = createReadiness(options({ slackAuthTest }));
    await readiness.start();
    expect(slackAuthTest).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(TIMINGS.slackOkEveryMs - 1);
    expect(slackAuthTest).toHaveBeenCalledTimes(1);
    slackUp = false;
    // A Slack call of the bot failed: checked now, not half a minute later; a burst of
    // failures asks once.
    readiness.suspectSlack();
    readiness.suspectSlack();
    await vi.advanceTimersByTimeAsync(0);
    expect(slackAuthTest).toHaveBeenCalledTimes(2);
    expect(readiness.report()).toMatchObject({ ok: false, slack: false });
    await vi.advanceTimersByTimeAsync(TIMINGS.slackFailedEveryMs);
    expect(slackAuthTest).toHaveBeenCalledTimes(3);
    slackUp = true;
    await vi.advanceTimersByTimeAsync(TIMINGS.slackFailedEveryMs);
    expect(readiness.report()).toMatchObject({ ok: true, slack: true });
    // Fine again: back to the slow pace.
    await vi.advanceTimersByTimeAsync(TIMINGS.slackOkEveryMs - 1);
    expect(slackAuthTest).toHaveBeenCalledTimes(4);
    readiness.stop();
  });

  it("says when the socket is down or the store lost its data, and stops every check on stop", async () => {
    let connected = false;
    const probeStore = vi.fn(async () => undefined);
    const resetAt = Date.UTC(2025, 0, 15, 9, 0, 0);
    const readiness = createReadiness(
      options({ probeStore, socketConnected: () => connected, storeResetAt: () => resetAt }),
    );
    await readiness.start();
    expect(readiness.report()).toEqual({
      ok: false,
      store: true,
      slack: true,
      disk: true,
      socket: false,
      storeReset: "2025-01-15T09:00:00.000Z",
    });
    connected = true;
    expect(readiness.report().ok).toBe(true);
    readiness.stop();
    const calls = probeStore.mock.calls.length;
    await vi.advanceTimersByTimeAsync(10 * TIMINGS.slackOkEveryMs);
    expect(probeStore).toHaveBeenCalledTimes(calls);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the disk probe", () => {
  const stats = (free: number, total: number): StatsFs =>
    ({ bsize: 4096, bavail: free / 4096, blocks: total / 4096 }) as StatsFs;
  const GiB = 1024 ** 3;

  it("wants the smaller of 512 MiB and a twentieth of the disk free, under the nearest folder that exists", async () => {
    const seen: string[] = [];
    const statfs = (free: number, total: number) => async (path: string) => {
      seen.push(path);
      if (path.endsWith("/not-yet")) throw Object.assign(new Error("no"), { code: "ENOENT" });
      return stats(free, total);
    };
    await expect(diskRoomProbe("/data/tmp", { statfs: statfs(GiB, 100 * GiB) })()).resolves.toBe(
      true,
    );
    await expect(
      diskRoomProbe("/data/tmp", { statfs: statfs(GiB / 4, 100 * GiB) })(),
    ).rejects.toThrow(/fewer than/);
    // A small volume: a twentieth of 2 GiB is enough.
    await expect(
      diskRoomProbe("/data/not-yet", { statfs: statfs(GiB / 4, 2 * GiB) })(),
    ).resolves.toBe(true);
    expect(seen.at(-1)).toBe("/data");
  });

  it("is not ready while a write found the disk full", async () => {
    const probe = diskRoomProbe("/data/tmp", {
      statfs: async () => stats(10 * GiB, 100 * GiB),
      fullSince: () => 0,
    });
    await expect(probe()).rejects.toThrow(/disk full/);
  });
});
