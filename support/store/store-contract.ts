import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INDEX_LIMIT, NAMESPACES, type Store, StoreClosedError } from "../../src/store/index.ts";

/** How a backend's test file opens stores for the shared contract. */
export interface StoreHarness {
  /** A store on fresh, empty data. */
  open(): Promise<Store>;
  /** A second store on the same data as the last `open()` (after a restart, or a replica). */
  reopen?(): Promise<Store>;
}

/** Short TTLs with a small real wait: the only way to see a backend's own expiry work. */
const TTL_MS = 50;
const PAST_TTL_MS = 150;

/**
 * What a store answered while a key written with `ttlMs` at `since` surely still lived
 * (the answer came back before the TTL ran out, counted from before the write), else
 * `"late"`: on a machine too loaded to ask in time there is no live key to look at, and the
 * expiry checks that follow still run.
 */
async function whileLive<T>(since: number, ttlMs: number, ask: () => Promise<T>) {
  const answer = await ask();
  return performance.now() - since < ttlMs ? answer : "late";
}

/**
 * The behaviour every backend must share. Each backend's test file calls this once with
 * its harness, so memory, SQLite and Redis are held to the same rules.
 */
export function describeStoreContract(name: string, harness: StoreHarness): void {
  describe(`${name} store contract`, () => {
    let store: Store;
    const opened: Store[] = [];

    beforeEach(async () => {
      store = await harness.open();
      opened.push(store);
    });

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    it("gets, sets and deletes JSON values per namespace without collisions", async () => {
      for (const ns of NAMESPACES) await store.set(ns, "same-key", { ns, list: [1, "two"] });
      for (const ns of NAMESPACES) {
        expect(await store.get(ns, "same-key")).toEqual({ ns, list: [1, "two"] });
      }
      await store.delete("jobs", "same-key");
      expect(await store.get("jobs", "same-key")).toBeUndefined();
      expect(await store.get("settings", "same-key")).toEqual({ ns: "settings", list: [1, "two"] });
      await store.set("settings", "same-key", { replaced: true });
      expect(await store.get("settings", "same-key")).toEqual({ replaced: true });
      expect(await store.get("meta", "never-written")).toBeUndefined();
      await store.delete("meta", "never-written");
    });

    it("keeps strings that look like Keyv's escapes intact", async () => {
      const value = { text: ":base64:abc", colon: ":x", nested: { empty: "" }, n: null };
      await store.set("jobs", "odd:key/with spaces", value);
      expect(await store.get("jobs", "odd:key/with spaces")).toEqual(value);
    });

    it("expires values after their TTL and keeps the others", async () => {
      const since = performance.now();
      await store.set("jobs", "short", { a: 1 }, TTL_MS);
      const young = await whileLive(since, TTL_MS, () => store.get("jobs", "short"));
      await store.set("jobs", "long", { b: 2 }, 60_000);
      await store.set("jobs", "forever", { c: 3 });
      expect(young).toEqual(expect.toBeOneOf([{ a: 1 }, "late"]));
      await sleep(PAST_TTL_MS);
      expect(await store.get("jobs", "short")).toBeUndefined();
      expect(await store.get("jobs", "long")).toEqual({ b: 2 });
      expect(await store.get("jobs", "forever")).toEqual({ c: 3 });
    });

    it("rejects TTLs that are not positive numbers", async () => {
      for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(store.set("jobs", "k", 1, ttl)).rejects.toThrow(RangeError);
        await expect(store.claim("k", ttl)).rejects.toThrow(RangeError);
        await expect(store.acquireLease("k", ttl)).rejects.toThrow(RangeError);
        await expect(store.claimBriefly("k", ttl)).rejects.toThrow(RangeError);
      }
    });

    it("claims a key once while it lives", async () => {
      expect(await store.claim("T1:C1:F1", 60_000)).toBe(true);
      expect(await store.claim("T1:C1:F1", 60_000)).toBe(false);
      expect(await store.claim("T1:C1:F2", 60_000)).toBe(true);
    });

    it("gives exactly one of 20 concurrent claims", async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => store.claim("T1:C1:race", 60_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("gives a released claim to the next caller", async () => {
      expect(await store.claim("T1:C1:undo", 60_000)).toBe(true);
      await store.releaseClaim("T1:C1:undo");
      expect(await store.claim("T1:C1:undo", 60_000)).toBe(true);
      expect(await store.claim("T1:C1:undo", 60_000)).toBe(false);
    });

    it("frees a claim after its TTL", async () => {
      expect(await store.claim("T1:C1:brief", TTL_MS)).toBe(true);
      await sleep(PAST_TTL_MS);
      expect(await store.claim("T1:C1:brief", TTL_MS)).toBe(true);
    });

    it("claims a short-lived key once while it lives, apart from ordinary claims", async () => {
      expect(await store.claimBriefly("sig:a", 60_000)).toBe(true);
      expect(await store.claimBriefly("sig:a", 60_000)).toBe(false);
      expect(await store.claimBriefly("sig:b", 60_000)).toBe(true);
      // Another key space than `claim`: the same name there is still free.
      expect(await store.claim("sig:a", 60_000)).toBe(true);
      const racing = await Promise.all(
        Array.from({ length: 20 }, () => store.claimBriefly("sig:race", 60_000)),
      );
      expect(racing.filter(Boolean)).toHaveLength(1);
    });

    it("frees a short-lived claim after its TTL", async () => {
      const since = performance.now();
      expect(await store.claimBriefly("sig:ttl", TTL_MS)).toBe(true);
      const again = await whileLive(since, TTL_MS, () => store.claimBriefly("sig:ttl", TTL_MS));
      expect(again).toBeOneOf([false, "late"]);
      await sleep(PAST_TTL_MS);
      expect(await store.claimBriefly("sig:ttl", TTL_MS)).toBe(true);
    });

    it("lets one holder at a time have a lease, renewed and released only by it", async () => {
      const token = await store.acquireLease("job:1", 60_000);
      expect(token).toEqual(expect.any(String));
      if (token === undefined) return;
      expect(await store.acquireLease("job:1", 60_000)).toBeUndefined();
      expect(await store.acquireLease("job:2", 60_000)).toEqual(expect.any(String));

      expect(await store.renewLease("job:1", token, 60_000)).toBe(true);
      expect(await store.renewLease("job:1", "not-the-token", 60_000)).toBe(false);

      await store.releaseLease("job:1", "not-the-token");
      expect(await store.acquireLease("job:1", 60_000)).toBeUndefined();

      await store.releaseLease("job:1", token);
      const next = await store.acquireLease("job:1", 60_000);
      expect(next).toEqual(expect.any(String));
      expect(next).not.toBe(token);
      // The old holder lost it: it can neither renew nor release the new holder's lease.
      expect(await store.renewLease("job:1", token, 60_000)).toBe(false);
      await store.releaseLease("job:1", token);
      expect(await store.acquireLease("job:1", 60_000)).toBeUndefined();
    });

    it("lets another holder take a lease after its TTL, and not the lapsed one renew it", async () => {
      const first = await store.acquireLease("job:ttl", TTL_MS);
      expect(first).toEqual(expect.any(String));
      await sleep(PAST_TTL_MS);
      expect(await store.renewLease("job:ttl", first ?? "", 60_000)).toBe(false);
      const second = await store.acquireLease("job:ttl", 60_000);
      expect(second).toEqual(expect.any(String));
      expect(second).not.toBe(first);
    });

    it("keeps a renewed lease past its first TTL", async () => {
      // Renewed at once, then waited past the first TTL: no race between a timer and the
      // TTL on a loaded machine (it once renewed at 60 ms of a 100 ms TTL).
      const since = performance.now();
      const token = (await store.acquireLease("job:renew", 2 * TTL_MS)) ?? "";
      const renewed = await store.renewLease("job:renew", token, 60_000);
      // Refused only when the renewal came too late on a loaded machine: nothing to see then.
      if (!renewed && performance.now() - since >= 2 * TTL_MS) return;
      expect(renewed).toBe(true);
      await sleep(2 * TTL_MS + PAST_TTL_MS);
      expect(await store.acquireLease("job:renew", 60_000)).toBeUndefined();
    });

    it("indexes active job ids", async () => {
      expect(await store.listActive()).toEqual([]);
      await store.addActive("j1", "queued");
      await store.addActive("j2", "queued");
      await store.addActive("j1", "queued");
      await store.addActive("j3", "queued");
      expect((await store.listActive()).sort()).toEqual(["j1", "j2", "j3"]);
      await store.removeActive("j2");
      await store.removeActive("never-added");
      expect((await store.listActive()).sort()).toEqual(["j1", "j3"]);
      await Promise.all(["a", "b", "c", "d"].map((id) => store.addActive(id, "queued")));
      await Promise.all(["j1", "j3", "a"].map((id) => store.removeActive(id)));
      expect((await store.listActive()).sort()).toEqual(["b", "c", "d"]);
    });

    it("counts active ids by stage, moving an id between stages and dropping it on removal", async () => {
      expect(await store.countActive()).toEqual({});
      await store.addActive("j1", "queued");
      await store.addActive("j2", "queued");
      await store.addActive("j3", "transcribing");
      expect(await store.countActive()).toMatchObject({ queued: 2, transcribing: 1 });
      await store.addActive("j1", "transcribing");
      await store.addActive("j1", "transcribing");
      await store.addActive("j2", "naming");
      const moved = await store.countActive();
      expect([moved.queued ?? 0, moved.transcribing, moved.naming]).toEqual([0, 2, 1]);
      await store.removeActive("j3");
      await store.removeActive("j2");
      const counts = await store.countActive();
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1);
      expect(counts.transcribing).toBe(1);
      await Promise.all(["a", "b", "c"].map((id) => store.addActive(id, "writing")));
      expect((await store.countActive()).writing).toBe(3);
    });

    it("claims due jobs earliest first, each with its lease, and says when the next is due", async () => {
      const now = Date.now();
      await store.schedule("late", now + 60_000);
      await store.schedule("second", now - 1_000);
      await store.schedule("first", now - 2_000);
      await store.schedule("gone", now - 3_000);
      await store.unschedule("gone");
      const { claimed, next } = await store.claimDue(now, 10, "job:", 60_000);
      expect(claimed.map((c) => c.jobId)).toEqual(["first", "second"]);
      // The claim holds the job's lease: nobody else takes it, the token renews it.
      for (const { jobId, token } of claimed) {
        expect(await store.acquireLease(`job:${jobId}`, 60_000)).toBeUndefined();
        expect(await store.renewLease(`job:${jobId}`, token, 60_000)).toBe(true);
      }
      expect(next).toBe(now + 60_000);
      // Claimed jobs are out of sight until their lease could have lapsed.
      expect((await store.claimDue(now + 1_000, 10, "job:", 60_000)).claimed).toEqual([]);
      // Its step done, the holder sets the next due time and gives the lease back.
      const second = claimed.find((c) => c.jobId === "second");
      await store.schedule("second", now + 5_000);
      await store.releaseLease("job:second", second?.token ?? "");
      expect((await store.claimDue(now + 5_000, 10, "job:", 60_000)).claimed).toEqual([
        { jobId: "second", token: expect.any(String) },
      ]);
    });

    it("spreads the overdue jobs of the stages that may wait over the window, the longest overdue first", async () => {
      const now = Date.now();
      const ids = Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, "0")}`);
      for (const [i, id] of ids.entries()) {
        await store.addActive(id, "transcribing");
        await store.schedule(id, now - 60_000 + i);
      }
      // Stay due now: a stage not named, and a job the index does not know.
      await store.addActive("urgent", "delivering");
      await store.schedule("urgent", now - 1);
      await store.schedule("unknown", now - 1);
      // Not overdue: left where it is.
      await store.addActive("later", "transcribing");
      await store.schedule("later", now + 20_000);
      expect(await store.spreadOverdue(now, 15_000, ["transcribing", "writing"])).toBe(30);
      // Claimed a second at a time, the queue gives out no more than 30 / 15 s a second,
      // in the order the jobs were due, and every one within the window.
      const order: string[] = [];
      const first = await store.claimDue(now, 100, "job:", 60_000);
      expect(first.claimed.map((c) => c.jobId).sort()).toEqual(["p00", "unknown", "urgent"]);
      order.push(...first.claimed.map((c) => c.jobId).filter((id) => id.startsWith("p")));
      for (let t = 1; t <= 15; t++) {
        const { claimed } = await store.claimDue(now + t * 1000 - 1, 100, "job:", 60_000);
        expect(claimed.length).toBeLessThanOrEqual(2);
        order.push(...claimed.map((c) => c.jobId));
      }
      expect(order).toEqual(ids);
      expect((await store.claimDue(now + 19_000, 100, "job:", 60_000)).claimed).toEqual([]);
    });

    it("claims no more than asked, and nothing with a limit of 0", async () => {
      const now = Date.now();
      for (let i = 0; i < 5; i++) await store.schedule(`j${i}`, now - 10 + i);
      const none = await store.claimDue(now, 0, "job:", 60_000);
      expect(none).toEqual({ claimed: [], next: now - 10 });
      const some = await store.claimDue(now, 2, "job:", 60_000);
      expect(some.claimed.map((c) => c.jobId)).toEqual(["j0", "j1"]);
      expect(some.next).toBe(now - 8);
    });

    it("moves a due job whose lease someone holds to when that lease ends", async () => {
      const now = Date.now();
      const token = await store.acquireLease("job:busy", 30_000);
      expect(token).toBeDefined();
      await store.schedule("busy", now - 1);
      const { claimed, next } = await store.claimDue(now, 5, "job:", 60_000);
      expect(claimed).toEqual([]);
      expect(next).toBeGreaterThan(now + 20_000);
      expect(next).toBeLessThanOrEqual(now + 30_000 + 1_000);
    });

    it("lets another claim a job whose claimant's lease lapsed (a replica died)", async () => {
      await store.schedule("orphan", Date.now() - 1);
      const first = await store.claimDue(Date.now(), 1, "job:", TTL_MS);
      expect(first.claimed).toHaveLength(1);
      await sleep(PAST_TTL_MS);
      const again = await store.claimDue(Date.now(), 1, "job:", 60_000);
      expect(again.claimed.map((c) => c.jobId)).toEqual(["orphan"]);
      expect(again.claimed[0]?.token).not.toBe(first.claimed[0]?.token);
    });

    it("gives each due job to one of many claims made at once", async () => {
      const now = Date.now();
      for (let i = 0; i < 30; i++) await store.schedule(`c${i}`, now - 1);
      const claims = await Promise.all(
        Array.from({ length: 10 }, () => store.claimDue(now, 5, "job:", 60_000)),
      );
      const ids = claims.flatMap((c) => c.claimed.map((x) => x.jobId));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(30);
    });

    it("deletes an index", async () => {
      await store.pushIndex("channel:T1:C1", "j1");
      await store.pushIndex("channel:T1:C2", "j2");
      await store.deleteIndex("channel:T1:C1");
      await store.deleteIndex("channel:never");
      expect(await store.listIndex("channel:T1:C1")).toEqual([]);
      expect(await store.listIndex("channel:T1:C2")).toEqual(["j2"]);
    });

    it("keeps unbounded sets of members, and deletes a set", async () => {
      expect(await store.listMembers("team:T1")).toEqual([]);
      await Promise.all(
        Array.from({ length: 120 }, (_, i) => store.addMember("team:T1", `jobs:${i}`)),
      );
      await store.addMember("team:T1", "jobs:0");
      await store.addMember("team:T2", "settings:C1");
      expect(await store.listMembers("team:T1")).toHaveLength(120);
      await store.deleteSet("team:T1");
      expect(await store.listMembers("team:T1")).toEqual([]);
      expect(await store.listMembers("team:T2")).toEqual(["settings:C1"]);
    });

    it(`keeps the newest ${INDEX_LIMIT} ids of an index, newest first`, async () => {
      for (let i = 0; i < 60; i += 1) await store.pushIndex("channel:C1", `job-${i}`);
      const expected = Array.from({ length: INDEX_LIMIT }, (_, i) => `job-${59 - i}`);
      expect(await store.listIndex("channel:C1")).toEqual(expected);

      await store.pushIndex("channel:C1", "job-30");
      const moved = await store.listIndex("channel:C1");
      expect(moved[0]).toBe("job-30");
      expect(moved.filter((id) => id === "job-30")).toHaveLength(1);
      expect(moved).toHaveLength(INDEX_LIMIT);

      await store.pushIndex("user:U1", "job-x");
      expect(await store.listIndex("user:U1")).toEqual(["job-x"]);
      expect(await store.listIndex("user:nobody")).toEqual([]);
    });

    it("answers ping, and after close rejects calls while ping says false", async () => {
      expect(await store.ping()).toBe(true);
      await store.close();
      await store.close();
      expect(await store.ping()).toBe(false);
      await expect(store.get("jobs", "x")).rejects.toThrow(StoreClosedError);
      await expect(store.claim("x", 1000)).rejects.toThrow(StoreClosedError);
      await expect(store.claimBriefly("x", 1000)).rejects.toThrow(StoreClosedError);
    });

    const { reopen } = harness;
    if (reopen !== undefined) {
      it("keeps values, claims and indexes across close and reopen", async () => {
        await store.set("jobs", "j1", { stage: "transcribing", taskId: "t-1" });
        await store.set("jobs", "gone-soon", { stage: "done" }, TTL_MS);
        expect(await store.claim("T1:C1:F9", 60_000)).toBe(true);
        await store.addActive("j1", "transcribing");
        await store.pushIndex("channel:C1", "j1");
        await store.schedule("j1", 1_000);
        await store.close();

        const again = await reopen();
        opened.push(again);
        expect(await again.get("jobs", "j1")).toEqual({ stage: "transcribing", taskId: "t-1" });
        expect(await again.claim("T1:C1:F9", 60_000)).toBe(false);
        expect(await again.listActive()).toEqual(["j1"]);
        expect((await again.countActive()).transcribing).toBe(1);
        expect(await again.listIndex("channel:C1")).toEqual(["j1"]);
        expect((await again.claimDue(2_000, 5, "job:", 60_000)).claimed).toEqual([
          { jobId: "j1", token: expect.any(String) },
        ]);
        await sleep(PAST_TTL_MS);
        expect(await again.get("jobs", "gone-soon")).toBeUndefined();
      });
    }
  });
}
