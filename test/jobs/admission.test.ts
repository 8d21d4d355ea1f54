import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Admission, type AdmissionLimits, type Job, type Place } from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { dropRedisKeys, runPrefix } from "../../support/crash/harness.ts";
import { HAS_REDIS, redisUrl } from "../../support/helpers/redis-url.ts";

const logger = pino({ level: "silent" });
const PREFIX = runPrefix();

/** A queued job of `user` in `channel`, created at `at`. */
function job(id: string, user: string, channel: string, at: number): Job {
  return {
    id,
    stage: "queued",
    createdAt: at,
    updatedAt: at,
    stageStartedAt: at,
    wakeAt: at,
    attempts: 0,
    origin: { teamId: "T1", channelId: channel, threadTs: "1.1", userId: user },
    source: { fileId: `F${id}`, filename: "a.m4a", size: 1, downloadUrl: "https://x.test/a" },
    options: {},
  };
}

function admissionOn(store: Store, limits: AdmissionLimits, holding = new Set<string>()) {
  let now = 1_000_000;
  const admission = new Admission({
    store,
    limits,
    logger,
    stillHolds: async (id) => holding.has(id),
    now: () => now,
  });
  return { admission, advance: (ms: number) => (now += ms) };
}

const admitted: Place = { admitted: true };

const backends: [string, () => Promise<Store>][] = [["memory", () => openStore("memory://")]];
if (HAS_REDIS) {
  backends.push(["redis", () => openStore(redisUrl(), { keyPrefix: PREFIX })]);
}

describe.each(backends)("Admission (%s)", (_kind, open) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(async () => {
    if (store.kind === "redis") await dropRedisKeys(redisUrl(), PREFIX);
    await store.close();
  });

  it("lets a person run up to their limit, then says how many are ahead", async () => {
    const { admission } = admissionOn(store, { perUser: 2, perChannel: 10, total: 10 });
    expect(await admission.request(job("a1", "alice", "C1", 1))).toEqual(admitted);
    expect(await admission.request(job("a2", "alice", "C1", 2))).toEqual(admitted);
    expect(await admission.request(job("a3", "alice", "C1", 3))).toEqual({
      admitted: false,
      ahead: 1,
    });
    expect(await admission.request(job("a4", "alice", "C1", 4))).toEqual({
      admitted: false,
      ahead: 2,
    });
    // Bob is not behind Alice's limit.
    expect(await admission.request(job("b1", "bob", "C1", 5))).toEqual(admitted);
    // Asking again changes nothing.
    expect(await admission.request(job("a1", "alice", "C1", 1))).toEqual(admitted);
    expect(await admission.request(job("a3", "alice", "C1", 3))).toMatchObject({ ahead: 1 });
  });

  it("frees a slot on release and hands it to the first in line", async () => {
    const { admission } = admissionOn(store, { perUser: 1, perChannel: 10, total: 10 });
    await admission.request(job("a1", "alice", "C1", 1));
    await admission.request(job("a2", "alice", "C1", 2));
    await admission.request(job("a3", "alice", "C1", 3));
    expect(await admission.release("a1")).toEqual(["a2"]);
    // a3 may not jump the line while a2 has not started yet.
    expect(await admission.request(job("a3", "alice", "C1", 3))).toMatchObject({
      admitted: false,
    });
    expect(await admission.request(job("a2", "alice", "C1", 2))).toEqual(admitted);
    expect(await admission.release("a2")).toEqual(["a3"]);
  });

  it("applies the channel and the whole-bot limits", async () => {
    const { admission } = admissionOn(store, { perUser: 10, perChannel: 1, total: 2 });
    expect(await admission.request(job("c1", "u1", "C1", 1))).toEqual(admitted);
    expect(await admission.request(job("c2", "u2", "C1", 2))).toEqual({
      admitted: false,
      ahead: 1,
    });
    expect(await admission.request(job("d1", "u3", "C2", 3))).toEqual(admitted);
    expect(await admission.request(job("e1", "u4", "C3", 4))).toEqual({
      admitted: false,
      ahead: 1,
    });
    expect(await admission.release("d1")).toEqual(["e1"]);
  });

  it("lets a job blocked by its own limit not hold back others", async () => {
    const { admission } = admissionOn(store, { perUser: 1, perChannel: 10, total: 2 });
    await admission.request(job("a1", "alice", "C1", 1));
    expect(await admission.request(job("a2", "alice", "C1", 2))).toMatchObject({
      admitted: false,
    });
    expect(await admission.request(job("b1", "bob", "C1", 3))).toEqual(admitted);
  });

  it("drops slots whose jobs no longer hold them, once a minute", async () => {
    const holding = new Set(["a1"]);
    const { admission, advance } = admissionOn(
      store,
      { perUser: 1, perChannel: 10, total: 10 },
      holding,
    );
    await admission.request(job("a1", "alice", "C1", 1));
    expect(await admission.request(job("a2", "alice", "C1", 2))).toMatchObject({
      admitted: false,
    });
    // a1 ended, but a crash kept it from giving its slot back.
    holding.delete("a1");
    holding.add("a2");
    advance(61_000);
    expect(await admission.request(job("a2", "alice", "C1", 2))).toEqual(admitted);
  });

  it("checks the listed jobs once a minute, even when the check is all that changed", async () => {
    // Regression: a checked record was saved only with another change, so once a check had
    // dropped the ids the calls were about, every call read every listed job again (1,000
    // jobs: a million reads while 1,000 notices came in).
    const holding = new Set(["c1", "c2", "c3"]);
    let checks = 0;
    const admission = new Admission({
      store,
      limits: { perUser: 5, perChannel: 5, total: 5 },
      logger,
      stillHolds: async (id) => {
        checks += 1;
        return holding.has(id);
      },
      now: () => now,
    });
    let now = 1_000_000;
    for (const id of holding) await admission.request(job(id, "u", "C1", 1));
    checks = 0;
    now += 61_000;
    // c1 left without giving its slot back; its release comes after the check dropped it.
    holding.delete("c1");
    expect(await admission.release("c1")).toEqual([]);
    expect(checks).toBe(3);
    for (let i = 0; i < 5; i++) await admission.release("c1");
    expect(checks).toBe(3);
  });

  it("never admits more than the limits allow, however many ask at once", async () => {
    const limits = { perUser: 2, perChannel: 3, total: 4 };
    const replicas = [admissionOn(store, limits).admission, admissionOn(store, limits).admission];
    const jobs = Array.from({ length: 24 }, (_, i) => job(`j${i}`, `u${i % 3}`, `C${i % 2}`, i));
    const places = await Promise.all(jobs.map((j, i) => (replicas[i % 2] as Admission).request(j)));
    const inside = jobs.filter((_, i) => places[i]?.admitted);
    expect(inside.length).toBeLessThanOrEqual(4);
    expect(inside.length).toBeGreaterThan(0);
    for (const user of ["u0", "u1", "u2"]) {
      expect(inside.filter((j) => j.origin.userId === user).length).toBeLessThanOrEqual(2);
    }
    for (const channel of ["C0", "C1"]) {
      expect(inside.filter((j) => j.origin.channelId === channel).length).toBeLessThanOrEqual(3);
    }
  });

  it("takes a burst of 500 releases in one process without giving up on the lease", async () => {
    // Regression: every caller polled the store's lease every 20 ms, so 1,000 jobs leaving
    // transcription at once waited 30 s and some threw "The admission lease stayed busy".
    const n = 500;
    const { admission } = admissionOn(store, { perUser: n, perChannel: n, total: n });
    const jobs = Array.from({ length: n }, (_, i) => job(`b${i}`, `u${i}`, "C1", i));
    for (const j of jobs) expect(await admission.request(j)).toEqual(admitted);
    const released = await Promise.allSettled(jobs.map((j) => admission.release(j.id)));
    expect(released.filter((r) => r.status === "rejected")).toEqual([]);
    expect(await admission.request(job("last", "u0", "C1", n))).toEqual(admitted);
  });

  it("writes a burst of releases together, and hands each freed slot out once", async () => {
    // Regression: each release read, checked and rewrote the whole record (100 KB with
    // 1,000 jobs), one after the other: 1,000 notices at once held the event loop 230 ms.
    const n = 500;
    const { admission } = admissionOn(store, { perUser: n, perChannel: n, total: n });
    const jobs = Array.from({ length: n + 2 }, (_, i) => job(`w${i}`, `u${i}`, "C1", i));
    for (const j of jobs) await admission.request(j);
    let writes = 0;
    const set = store.set.bind(store);
    store.set = async (ns, key, value, ttlMs) => {
      if (ns === "meta" && key === "admission") writes += 1;
      return set(ns, key, value, ttlMs);
    };
    const ready = await Promise.all(jobs.slice(0, n).map((j) => admission.release(j.id)));
    // All of them arrive before the record is read: one read, one write (500 before).
    expect(writes).toBe(1);
    // The two that waited may start now, each told once.
    expect(ready.flat().sort()).toEqual([`w${n}`, `w${n + 1}`]);
  });

  it("fails every release of a batch whose write fails, and takes the next ones", async () => {
    const { admission } = admissionOn(store, { perUser: 4, perChannel: 4, total: 4 });
    const jobs = ["f1", "f2", "f3"].map((id, i) => job(id, "u", "C1", i));
    for (const j of jobs) await admission.request(j);
    const set = store.set.bind(store);
    store.set = async () => {
      store.set = set;
      throw new Error("store down");
    };
    const first = await Promise.allSettled(jobs.slice(0, 2).map((j) => admission.release(j.id)));
    expect(first.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await admission.release("f3")).toEqual([]);
    // f1 and f2 are still listed (the check drops them once their records say so).
    for (let i = 0; i < 2; i++) await admission.request(job(`g${i}`, "u", "C1", 10 + i));
    expect(await admission.request(job("g2", "u", "C1", 12))).toMatchObject({ admitted: false });
  });
});
