import { randomUUID } from "node:crypto";
import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/index.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";
import { TcpProxy } from "../../support/helpers/tcp-proxy.ts";
import { runStoreChild } from "../../support/store/child-exit.ts";
import { describeCompareAndSetContract } from "../../support/store/compare-and-set-contract.ts";
import { describeForgetContract } from "../../support/store/forget-contract.ts";
import { describeStoreContract } from "../../support/store/store-contract.ts";

/** Nothing listens here: a Redis that is down. */
const CLOSED_PORT_URL = "redis://127.0.0.1:6390";

describe.skipIf(!HAS_REDIS)("redis store", () => {
  // Read only when the suite runs: collecting a skipped suite still runs its body.
  const url = HAS_REDIS ? redisUrl() : "";
  // One prefix per run, one sub-prefix per store: parallel files and runs never collide.
  const runPrefix = `mn-test-${randomUUID().slice(0, 8)}`;
  let count = 0;
  let lastPrefix = "";
  let raw: ReturnType<typeof createClient>;

  beforeAll(async () => {
    raw = createClient({ url });
    await raw.connect();
  });

  afterAll(async () => {
    const keys: string[] = [];
    for await (const batch of raw.scanIterator({ MATCH: `${runPrefix}*`, COUNT: 1000 })) {
      keys.push(...batch);
    }
    if (keys.length > 0) await raw.del(keys);
    raw.destroy();
  });

  describeStoreContract("redis", {
    open() {
      count += 1;
      lastPrefix = `${runPrefix}-${count}`;
      return openStore(url, { keyPrefix: lastPrefix });
    },
    reopen: () => openStore(url, { keyPrefix: lastPrefix }),
  });
  describeForgetContract("redis", () => {
    count += 1;
    return openStore(url, { keyPrefix: `${runPrefix}-${count}` });
  });
  describeCompareAndSetContract("redis", () => {
    count += 1;
    return openStore(url, { keyPrefix: `${runPrefix}-${count}` });
  });

  describe("shared by replicas", () => {
    let a: Store;
    let b: Store;
    const prefix = `${runPrefix}-replicas`;

    beforeAll(async () => {
      [a, b] = await Promise.all([
        openStore(url, { keyPrefix: prefix }),
        openStore(url, { keyPrefix: prefix }),
      ]);
    });

    afterAll(async () => {
      await Promise.all([a.close(), b.close()]);
    });

    it("gives exactly one claim across two stores", async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).claim("T:C:F", 60_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("lets only one replica hold a lease, and only the holder release it", async () => {
      const token = await a.acquireLease("job:9", 60_000);
      expect(token).toEqual(expect.any(String));
      expect(await b.acquireLease("job:9", 60_000)).toBeUndefined();
      await b.releaseLease("job:9", "guess");
      expect(await b.acquireLease("job:9", 60_000)).toBeUndefined();
      await a.releaseLease("job:9", token ?? "");
      expect(await b.acquireLease("job:9", 60_000)).toEqual(expect.any(String));
    });

    it("spreads a restart's backlog once, whichever replicas start together", async () => {
      const now = Date.now();
      const ids = Array.from({ length: 40 }, (_, i) => `spread-${i}`);
      for (const [i, id] of ids.entries()) {
        await a.addActive(id, "transcribing");
        await a.schedule(id, now - 30_000 + i);
      }
      const moved = await Promise.all([
        a.spreadOverdue(now, 15_000, ["transcribing"]),
        b.spreadOverdue(now, 15_000, ["transcribing"]),
      ]);
      expect(moved.sort()).toEqual([0, 40]);
      // A replica starting within the window finds the backlog spread, and moves nothing.
      expect(await b.spreadOverdue(now + 1_000, 15_000, ["transcribing"])).toBe(0);
      const due = await raw.zRangeWithScores(`${prefix}:due`, 0, -1);
      const times = due.filter((e) => e.value.startsWith("spread-")).map((e) => e.score);
      // Nothing lost, nothing left overdue but the first, all within the window.
      expect(times).toHaveLength(40);
      const onRedis = Math.min(...times);
      expect(Math.max(...times) - onRedis).toBeLessThan(15_000);
      expect(new Set(times).size).toBe(40);
      // The replicas' store is shared by the tests below.
      for (const id of ids) await Promise.all([a.removeActive(id), a.unschedule(id)]);
    });

    it("shares values and indexes", async () => {
      await a.set("jobs", "j1", { stage: "queued" });
      await a.addActive("j1", "queued");
      await a.pushIndex("user:U1", "j1");
      expect(await b.get("jobs", "j1")).toEqual({ stage: "queued" });
      expect(await b.listActive()).toEqual(["j1"]);
      expect(await b.listIndex("user:U1")).toEqual(["j1"]);
    });

    it("lays keys out under the prefix, with Redis TTLs and a SET of active ids", async () => {
      await a.set("jobs", "ttl", { x: 1 }, 60_000);
      await a.claim("layout", 60_000);
      await a.acquireLease("layout", 60_000);
      const pttl = async (key: string) => raw.pTTL(key);
      expect(await pttl(`${prefix}:jobs:ttl`)).toBeGreaterThan(0);
      expect(await pttl(`${prefix}:claim:layout`)).toBeGreaterThan(0);
      expect(await pttl(`${prefix}:lease:layout`)).toBeGreaterThan(0);
      expect(await raw.type(`${prefix}:active`)).toBe("set");
      expect(await raw.type(`${prefix}:index:user:U1`)).toBe("list");
    });
  });

  describe("when Redis is unreachable", () => {
    it("opens anyway, pings false and fails calls within 2 s", async () => {
      const started = Date.now();
      const store = await openStore(CLOSED_PORT_URL, { keyPrefix: `${runPrefix}-down` });
      expect(await store.ping()).toBe(false);
      await expect(store.get("jobs", "x")).rejects.toThrow(/Redis GET failed/);
      await expect(store.claim("x", 1000)).rejects.toThrow(/Redis SET NX failed/);
      await expect(store.listActive()).rejects.toThrow(/Redis SMEMBERS failed/);
      expect(Date.now() - started).toBeLessThan(2000);
      await store.close();
    });

    it("fails fast during an outage and heals when Redis is back", async () => {
      const target = new URL(url);
      const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
      await proxy.start();
      const proxied = new URL(url);
      proxied.hostname = "127.0.0.1";
      proxied.port = String(proxy.port);
      const store = await openStore(proxied.toString(), { keyPrefix: `${runPrefix}-outage` });
      try {
        await store.set("jobs", "j", { ok: 1 });
        expect(await store.ping()).toBe(true);

        await proxy.stop();
        // Once the client has seen the connection go: then every call must fail fast.
        await eventually(
          () => store.ping(),
          (up) => !up,
          { what: "the outage seen" },
        );
        const started = Date.now();
        await expect(store.get("jobs", "j")).rejects.toThrow(/Redis GET failed/);
        await expect(store.acquireLease("j", 1000)).rejects.toThrow(/Redis/);
        expect(Date.now() - started).toBeLessThan(1000);

        await proxy.start();
        await eventually(
          () => store.ping(),
          (up) => up,
          { what: "Redis back", timeoutMs: 5_000, intervalMs: 50 },
        );
        expect(await store.get("jobs", "j")).toEqual({ ok: 1 });
      } finally {
        await store.close();
        await proxy.stop();
      }
    });
  });

  describe("close()", () => {
    it("lets the process exit, with Redis up", async () => {
      const result = await runStoreChild(`
        const store = await openStore(${JSON.stringify(url)}, { keyPrefix: "${runPrefix}-child" });
        await store.set("jobs", "j", { ok: true }, 60_000);
        await store.acquireLease("l", 60_000);
        await store.close();
        console.log("closed");
      `);
      expect(result.stderr).toBe("");
      expect(result).toMatchObject({ code: 0, stdout: "closed\n" });
    });

    it("lets the process exit quickly, with Redis down", async () => {
      // Timed in the child from close() to its exit: the child's start and the failed ping
      // before it take what the machine's load makes them.
      const result = await runStoreChild(
        `
        const { writeSync } = await import("node:fs");
        const store = await openStore(${JSON.stringify(CLOSED_PORT_URL)});
        console.log(await store.ping());
        const closing = performance.now();
        process.on("exit", () => writeSync(1, \`\${Math.round(performance.now() - closing)}\\n\`));
        await store.close();
      `,
        15_000,
      );
      expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^false\n\d+\n$/) });
      const exitMs = Number(result.stdout.split("\n")[1]);
      // A reconnect timer left behind would hold the process for its backoff, or for good.
      expect(exitMs).toBeLessThan(2_000);
    });
  });
});
