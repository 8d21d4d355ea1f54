import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LeaseLost, withLease } from "../../src/jobs/persistence/with-lease.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { StoreFault } from "../../support/helpers/failing-store.ts";

let store: Store;
beforeEach(async () => {
  store = await openStore("memory://");
});
afterEach(() => store.close());

describe("withLease", () => {
  it("runs the work under the lease and gives it back after, even when the work throws", async () => {
    const result = await withLease(store, "k", { ttlMs: 60_000 }, async () => {
      expect(await store.acquireLease("k", 60_000)).toBeUndefined();
      return 7;
    });
    expect(result).toEqual({ held: true, value: 7 });
    await expect(
      withLease(store, "k", { ttlMs: 60_000 }, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await store.acquireLease("k", 60_000)).toBeDefined();
  });

  it("says when someone else holds it, after the retries", async () => {
    await store.acquireLease("busy", 60_000);
    let ran = false;
    const result = await withLease(
      store,
      "busy",
      { ttlMs: 1_000, retry: { tries: 3, delayMs: 1 } },
      async () => {
        ran = true;
      },
    );
    expect(result).toEqual({ held: false });
    expect(ran).toBe(false);
  });

  it("waits for a lease given back during its retries", async () => {
    const token = (await store.acquireLease("soon", 60_000)) ?? "";
    const waited = withLease(
      store,
      "soon",
      { ttlMs: 1_000, retry: { tries: 50, delayMs: 2 } },
      () => Promise.resolve("mine"),
    );
    await store.releaseLease("soon", token);
    expect(await waited).toEqual({ held: true, value: "mine" });
  });

  it("aborts the work's signal with LeaseLost once the lease is lost", async () => {
    // A store where the holder's renewal fails, as after a stall past the lease's end.
    const lapsing = new Proxy(store, {
      get(target, name, receiver) {
        if (name === "renewLease") return async () => false;
        const value = Reflect.get(target, name, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const result = await withLease(lapsing, "lost", { ttlMs: 60_000 }, async (lease) => {
      expect(lease.signal.aborted).toBe(false);
      await expect(lease.renew()).rejects.toBeInstanceOf(LeaseLost);
      await expect(lease.renew()).rejects.toBeInstanceOf(LeaseLost);
      return lease.signal.reason;
    });
    expect(result.held && result.value).toBeInstanceOf(LeaseLost);
  });

  it("renews a kept-alive lease while the work runs", async () => {
    let renewals = 0;
    const counting = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name === "renewLease") {
          return (...args: Parameters<Store["renewLease"]>) => {
            renewals += 1;
            return target.renewLease(...args);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    // A lease long enough that a loaded machine's late timers do not lose it between two
    // renewals (a lost lease stops the renewals, which is another test's).
    await withLease(counting, "alive", { ttlMs: 600, keepAlive: true }, async () => {
      await eventually(
        () => renewals,
        (n) => n >= 2,
        { timeoutMs: 10_000, intervalMs: 20, orLast: true },
      );
    });
    expect(renewals).toBeGreaterThanOrEqual(2);
  });

  it("throws a release the store failed when asked to, so the runner gives the lease back later", async () => {
    // The fault suite killed Redis mid-step: the release failed unseen, the lease stayed in
    // Redis's append-only file, and every Skip after Redis came back was told the job was busy.
    const failing = new StoreFault();
    const faulty = failing.wrap(store);
    const work = async () => {
      failing.mode = "some";
      failing.methods.add("releaseLease");
      return 7;
    };
    await expect(withLease(faulty, "a", { ttlMs: 60_000 }, work)).resolves.toEqual({
      held: true,
      value: 7,
    });
    failing.mode = "none";
    const options = { ttlMs: 60_000, throwIfNotReleased: true };
    await expect(withLease(faulty, "b", options, work)).rejects.toThrow("releaseLease");
  });
});
