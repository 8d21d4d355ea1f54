/**
 * What a SQLite store carries over a restart for the job runner (issue 23): its clock (due
 * times keep their meaning when the wall clock reads earlier than before the stop) and the
 * steps its last process left unfinished (due at once, not a lease later).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openStore, type Store } from "../../src/store/index.ts";
import { openSqliteStore } from "../../src/store/sqlite-store.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

const TEN_MINUTES = 10 * 60_000;
const LEASE_MS = 60_000;

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let count = 0;

beforeAll(async () => {
  temp = await makeTempDir("mn-store-restart-");
});
afterAll(async () => {
  await temp.cleanup();
});

/** A SQLite store whose wall clock reads `shift` ms off. */
function openShifted(file: string, shift: number) {
  return openSqliteStore(file, {
    keyPrefix: "restart",
    sweepIntervalMs: 0,
    clock: { wall: () => Date.now() + shift, mono: () => performance.now() },
  });
}

describe("a SQLite store reopened", () => {
  it("resumes its clock from its last change when the wall clock was set 10 min back meanwhile", async () => {
    const file = join(temp.dir, `clock-${++count}.sqlite`);
    const before = await openShifted(file, 0);
    const dueAt = before.now() + 1000;
    await before.schedule("soon", dueAt);
    await before.close();

    const after = await openShifted(file, -TEN_MINUTES);
    try {
      // Due in a second still, not in ten minutes and a second.
      expect(dueAt - after.now()).toBeLessThan(1010);
      expect((await after.claimDue(after.now(), 5, "job:", LEASE_MS)).claimed).toEqual([]);
      const later = await after.claimDue(after.now() + 1010, 5, "job:", LEASE_MS);
      expect(later.claimed.map((c) => c.jobId)).toEqual(["soon"]);
    } finally {
      await after.close();
    }
  });

  it("follows the wall clock again once it reads later than the last change", async () => {
    const file = join(temp.dir, `clock-${++count}.sqlite`);
    const before = await openShifted(file, 0);
    await before.schedule("job", before.now());
    await before.close();
    const after = await openShifted(file, TEN_MINUTES);
    try {
      expect(after.now() - Date.now()).toBeGreaterThan(TEN_MINUTES - 1000);
    } finally {
      await after.close();
    }
  });

  it("makes due at once the jobs whose claims its last process never gave back", async () => {
    const file = join(temp.dir, `resume-${++count}.sqlite`);
    const before = await openShifted(file, 0);
    const now = before.now();
    await before.schedule("interrupted", now - 1);
    await before.schedule("later", now + 30_000);
    await before.schedule("done-and-rescheduled", now - 1);
    const { claimed } = await before.claimDue(now, 5, "job:", LEASE_MS);
    expect(claimed.map((c) => c.jobId).sort()).toEqual(["done-and-rescheduled", "interrupted"]);
    // This one's step ended and saved its next due time; the other was killed mid-step.
    await before.schedule("done-and-rescheduled", now + 20_000);
    await before.close();

    const after = await openShifted(file, 0);
    try {
      const again = await after.claimDue(after.now(), 5, "job:", LEASE_MS);
      expect(again.claimed.map((c) => c.jobId)).toEqual(["interrupted"]);
      expect(again.next).toBe(now + 20_000);
    } finally {
      await after.close();
    }
  });
});

const backends = [
  { name: "memory", enabled: true, open: () => openStore("memory://") },
  {
    name: "SQLite",
    enabled: true,
    open: () => openStore(`sqlite://${join(temp.dir, `lease-${++count}.sqlite`)}`),
  },
  {
    name: "Redis",
    enabled: HAS_REDIS,
    open: () => openStore(redisUrl(), { keyPrefix: `mn-test-lease-${Math.random()}` }),
  },
];

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`a lease on ${backend.name}`, () => {
    it("stays held, renewed in time, when the wall clock moves 10 min forward", async () => {
      vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true, advanceTimeDelta: 5 });
      let store: Store | undefined;
      try {
        store = await backend.open();
        const token = (await store.acquireLease("job:held", 1000)) ?? "";
        expect(token).not.toBe("");
        vi.setSystemTime(Date.now() + TEN_MINUTES);
        expect(await store.renewLease("job:held", token, 1000)).toBe(true);
        expect(await store.acquireLease("job:held", 1000)).toBeUndefined();
        await store.releaseLease("job:held", token);
      } finally {
        await store?.close();
        vi.useRealTimers();
      }
    });
  });
}
