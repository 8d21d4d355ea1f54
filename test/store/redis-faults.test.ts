import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store, StoreError } from "../../src/store/index.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import {
  HAS_REDIS_SERVER,
  type PrivateRedis,
  startPrivateRedis,
} from "../../support/helpers/redis-server.ts";

const DEADLINE_MS = 300;

/** How long `call` took to settle, and how: a value, or the error it rejected with. */
async function timed(call: () => Promise<unknown>) {
  const started = performance.now();
  const outcome = await call().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { ms: performance.now() - started, ...outcome };
}

describe.skipIf(!HAS_REDIS_SERVER)("the Redis store against a paused or emptied Redis", () => {
  let redis: PrivateRedis;
  const stores: Store[] = [];
  const open = async () => {
    const store = await openStore(redis.url, { keyPrefix: "faults", timeoutMs: DEADLINE_MS });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    redis.resume();
    await Promise.all(stores.map((store) => store.close()));
    await redis.stop();
  });

  it("rejects every call within its deadline while Redis is paused, and answers again on the same connection once it resumes", async () => {
    const store = await open();
    await store.set("jobs", "a", { v: 0 });
    redis.pause();
    try {
      const calls: Record<string, () => Promise<unknown>> = {
        set: () => store.set("jobs", "a", { v: 1 }),
        get: () => store.get("jobs", "a"),
        claim: () => store.claim("upload:C:F", 60_000),
        acquireLease: () => store.acquireLease("job:1", 60_000),
        schedule: () => store.schedule("job-1", Date.now()),
        claimDue: () => store.claimDue(Date.now(), 5, "job:", 60_000),
        addActive: () => store.addActive("job-1", "queued"),
        pushIndex: () => store.pushIndex("user:T:U", "job-1"),
        listKeys: () => store.listKeys("jobs", ""),
        checkEpoch: () => store.checkEpoch(),
      };
      for (const [name, call] of Object.entries(calls)) {
        const result = await timed(call);
        expect(result, name).toMatchObject({ error: expect.any(StoreError) });
        expect(result.ms, name).toBeLessThan(DEADLINE_MS + 200);
      }
      // The first call waited its deadline out; the ones after it were not even sent.
      const refused = await timed(() => store.get("jobs", "a"));
      expect(String((refused as { error: unknown }).error)).toMatch(/not sent/);
      // At once: not a deadline waited out again.
      expect(refused.ms).toBeLessThan(DEADLINE_MS);
      expect((await timed(() => store.ping())).ms).toBeLessThan(1_100);
    } finally {
      redis.resume();
    }
    // No reconnection needed: the calls left on the socket are answered, in order, and the
    // store takes calls again. The write that timed out did land, late.
    const value = await eventually(
      () => store.get("jobs", "a").catch(() => "refused"),
      (v) => v !== "refused",
      { timeoutMs: 2_000 },
    );
    expect(value).toEqual({ v: 1 });
    expect(await store.ping()).toBe(true);
  });

  it("finds the loss once when Redis comes back empty, on every replica, which agree on the new epoch", async () => {
    const [a, b] = [await open(), await open()];
    expect(await a.checkEpoch()).toBe("same");
    expect(await b.checkEpoch()).toBe("same");
    await a.set("jobs", "kept", { v: 1 });
    expect(await a.checkEpoch()).toBe("same");
    await redis.restartEmpty();
    // Reconnecting first: a check that cannot read the store rejects, and is asked again.
    const found = await eventually(
      () => a.checkEpoch().catch(() => "unreadable"),
      (v) => v !== "unreadable",
      { timeoutMs: 5_000 },
    );
    expect(found).toBe("reset");
    expect(await a.checkEpoch()).toBe("same");
    expect(await a.get("jobs", "kept")).toBeUndefined();
    const other = await eventually(
      () => b.checkEpoch().catch(() => "unreadable"),
      (v) => v !== "unreadable",
      { timeoutMs: 5_000 },
    );
    expect(other).toBe("reset");
    expect(await b.checkEpoch()).toBe("same");
    expect(await a.checkEpoch()).toBe("same");
  });
});
