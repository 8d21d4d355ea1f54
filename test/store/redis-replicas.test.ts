/**
 * Replicas on one Redis (issue 23): they schedule and claim on Redis's clock, whatever
 * their own clocks say, and a restarted replica frees at once the leases its dead process
 * held, never those of another replica or of a live process.
 */
import { randomUUID } from "node:crypto";
import { createClient } from "@keyv/redis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RedisClient } from "../../src/store/redis-client.ts";
import { RedisStore } from "../../src/store/redis-store.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";

const TEN_MINUTES = 10 * 60_000;
const LEASE_MS = 60_000;

describe.skipIf(!HAS_REDIS)("replicas on one Redis", () => {
  // Read only when the suite runs: collecting a skipped suite still runs its body.
  const url = HAS_REDIS ? redisUrl() : "";
  const runPrefix = `mn-test-${randomUUID().slice(0, 8)}`;
  let raw: ReturnType<typeof createClient>;
  let count = 0;
  let prefix = "";
  const stores: RedisStore[] = [];

  beforeAll(async () => {
    raw = createClient({ url });
    await raw.connect();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    const keys: string[] = [];
    for await (const batch of raw.scanIterator({ MATCH: `${runPrefix}*`, COUNT: 1000 })) {
      keys.push(...batch);
    }
    if (keys.length > 0) await raw.del(keys);
    raw.destroy();
  });

  /** A replica's store: its own connection, name and (skewed) wall clock. */
  async function replica(options: { instance?: string; skewMs?: number; keyPrefix?: string } = {}) {
    const client: RedisClient = createClient({ url });
    await client.connect();
    const skew = options.skewMs ?? 0;
    const store = new RedisStore(client, {
      keyPrefix: options.keyPrefix ?? prefix,
      ...(options.instance === undefined ? {} : { instance: options.instance }),
      clock: { wall: () => Date.now() + skew, mono: () => performance.now() },
    });
    stores.push(store);
    return store;
  }

  /** Claims from `store` until it gets `jobId`; resolves to how long that took (ms). */
  async function claimedAfter(store: RedisStore, jobId: string, since: number): Promise<number> {
    await eventually(
      async () => (await store.claimDue(store.now(), 10, "job:", LEASE_MS)).claimed,
      (claimed) => claimed.some((c) => c.jobId === jobId),
      { what: `${jobId} claimed`, intervalMs: 20, timeoutMs: 5000 },
    );
    return performance.now() - since;
  }

  describe("with clocks 10 min apart", () => {
    for (const skewMs of [TEN_MINUTES, -TEN_MINUTES]) {
      const how = skewMs > 0 ? "ahead" : "behind";
      it(`neither hasten nor delay each other's jobs when one is ${how}`, async () => {
        count += 1;
        // Two pairs, one queue each: a job of the skewed replica claimed by the right one,
        // and one of the right replica claimed by the skewed one.
        const [one, two] = [`${runPrefix}-clock-${count}a`, `${runPrefix}-clock-${count}b`];
        const [right, skewed, right2, skewed2] = await Promise.all([
          replica({ keyPrefix: one }),
          replica({ keyPrefix: one, skewMs }),
          replica({ keyPrefix: two }),
          replica({ keyPrefix: two, skewMs }),
        ]);
        const since = performance.now();
        await skewed.schedule("from-skewed", skewed.now() + 1000);
        await right2.schedule("from-right", right2.now() + 1000);
        const [byRight, bySkewed] = await Promise.all([
          claimedAfter(right, "from-skewed", since),
          claimedAfter(skewed2, "from-right", since),
        ]);
        for (const took of [byRight, bySkewed]) {
          expect(took).toBeGreaterThanOrEqual(900);
          expect(took).toBeLessThan(2500);
        }
        // One clock: Redis's.
        expect(Math.abs(skewed.now() - right.now())).toBeLessThan(100);
      });
    }
  });

  describe("a restarted replica", () => {
    /** The boot id in a lease token (`instance/boot/…`). */
    const bootOf = (token: string) => token.split("/")[1] ?? "";

    async function claimOne(store: RedisStore, jobId: string): Promise<string> {
      await store.schedule(jobId, store.now() - 1);
      const { claimed } = await store.claimDue(store.now(), 1, "job:", LEASE_MS);
      const token = claimed.find((c) => c.jobId === jobId)?.token;
      if (token === undefined) throw new Error(`${jobId} not claimed`);
      return token;
    }

    it("frees at once the leases of its dead process, not another replica's nor a live process's", async () => {
      count += 1;
      prefix = `${runPrefix}-restart-${count}`;
      const dead = await replica({ instance: "replica-a" });
      const otherDead = await replica({ instance: "replica-b" });
      const twin = await replica({ instance: "replica-a" });
      const mine = await claimOne(dead, "mine");
      const theirs = await claimOne(otherDead, "theirs");
      const twins = await claimOne(twin, "twins");
      // Killed: no more beats, and their heartbeat keys have lapsed.
      await dead.close();
      await otherDead.close();
      await raw.del([`${prefix}:boot:${bootOf(mine)}`, `${prefix}:boot:${bootOf(theirs)}`]);

      const restarted = await replica({ instance: "replica-a" });
      const { claimed } = await restarted.claimDue(restarted.now(), 10, "job:", LEASE_MS);
      expect(claimed.map((c) => c.jobId)).toEqual(["mine"]);
      expect(claimed[0]?.token.startsWith("replica-a/")).toBe(true);
      // The live process of the same name keeps its lease.
      expect(await twin.renewLease("job:twins", twins, LEASE_MS)).toBe(true);
      // And another replica's lease is left to lapse.
      expect(await raw.get(`${prefix}:lease:job:theirs`)).toBe(theirs);
    });

    it("resumes, within a few seconds, the jobs of a process killed a moment before", async () => {
      count += 1;
      prefix = `${runPrefix}-killed-${count}`;
      const killed = await replica({ instance: "replica-c" });
      await claimOne(killed, "interrupted");
      await killed.close();
      const since = performance.now();
      const restarted = await replica({ instance: "replica-c" });
      // Its heartbeat key still lives for up to 3 s: claims keep looking until it lapses.
      const took = await claimedAfter(restarted, "interrupted", since);
      expect(took).toBeLessThan(4500);
    });
  });
});
