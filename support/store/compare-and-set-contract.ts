import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/index.ts";

/**
 * `Store.compareAndSet`, the same on every backend: a write that lands only while the value
 * read is still stored. Each backend's test file calls this with a way to open a fresh store.
 */
export function describeCompareAndSetContract(name: string, open: () => Promise<Store>): void {
  describe(`${name} store: compare-and-set`, () => {
    let store: Store;

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it("writes the new value while the stored one is still the one read", async () => {
      const read = { token: "old", scopes: ["a", "b"], n: 1 };
      await store.set("installs", "T1", read);
      const next = { token: "new", scopes: ["a"], n: 2 };
      expect(await store.compareAndSet("installs", "T1", read, next)).toBe(true);
      expect(await store.get("installs", "T1")).toEqual(next);
    });

    it("writes nothing once another writer changed the value, nor when it is gone", async () => {
      const read = { token: "old" };
      await store.set("installs", "T1", read);
      // Another writer (a reinstall) lands between this writer's read and its write.
      await store.set("installs", "T1", { token: "reinstalled" });
      expect(await store.compareAndSet("installs", "T1", read, { token: "refreshed" })).toBe(false);
      expect(await store.get("installs", "T1")).toEqual({ token: "reinstalled" });

      await store.delete("installs", "T1");
      expect(await store.compareAndSet("installs", "T1", read, { token: "x" })).toBe(false);
      expect(await store.get("installs", "T1")).toBeUndefined();
    });

    it("compares the whole value, not its identity: an equal value written again still matches", async () => {
      await store.set("meta", "k", { a: [1, { b: "c" }], s: ":odd" });
      const copy: unknown = { a: [1, { b: "c" }], s: ":odd" };
      expect(await store.compareAndSet<unknown>("meta", "k", copy, { a: [] })).toBe(true);
      expect(await store.compareAndSet<unknown>("meta", "k", { a: [1] }, { a: [2] })).toBe(false);
      expect(await store.get("meta", "k")).toEqual({ a: [] });
    });

    it("of two writers that read the same value, exactly one writes", async () => {
      const read = { token: "old" };
      await store.set("installs", "T1", read);
      const outcomes = await Promise.all(
        ["first", "second", "third"].map((token) =>
          store.compareAndSet("installs", "T1", read, { token }),
        ),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const won = ["first", "second", "third"][outcomes.indexOf(true)];
      expect(await store.get("installs", "T1")).toEqual({ token: won });
    });

    it("gives the new value its TTL, and an expired value matches nothing", async () => {
      await store.set("meta", "k", { v: 1 });
      expect(await store.compareAndSet("meta", "k", { v: 1 }, { v: 2 }, 100)).toBe(true);
      // Only a backend's own expiry shows the TTL was given: a wait well past it.
      await sleep(300);
      expect(await store.get("meta", "k")).toBeUndefined();
      expect(await store.compareAndSet("meta", "k", { v: 2 }, { v: 3 })).toBe(false);
      await expect(store.compareAndSet("meta", "k", { v: 2 }, { v: 3 }, 0)).rejects.toThrow(
        RangeError,
      );
    });

    it("keeps namespaces apart", async () => {
      await store.set("installs", "same", { v: 1 });
      await store.set("settings", "same", { v: 1 });
      expect(await store.compareAndSet("installs", "same", { v: 1 }, { v: 2 })).toBe(true);
      expect(await store.get("settings", "same")).toEqual({ v: 1 });
    });
  });
}
