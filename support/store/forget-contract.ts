import { afterEach, describe, expect, it } from "vitest";
import { type Store, StoreClosedError } from "../../src/store/index.ts";

/**
 * What an uninstall needs of every backend: one member taken out of a set (the list of
 * the install's teams), the keys under a prefix (a job's blobs), and a scrub that keeps
 * what is kept. Each backend's test file
 * calls this with a way to open a store on fresh data. Whether a scrub really wipes
 * deleted text from SQLite's files is `sqlite-scrub.test.ts`.
 */
export function describeForgetContract(name: string, open: () => Promise<Store>): void {
  describe(`${name} store: what forgetting needs`, () => {
    const opened: Store[] = [];
    const fresh = async () => {
      const store = await open();
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    it("takes one member out of a set, and nothing of another", async () => {
      const store = await fresh();
      await store.addMember("teams", "T1");
      await store.addMember("teams", "T2");
      await store.addMember("team:T1", "T2");
      await store.removeMember("teams", "T2");
      await store.removeMember("teams", "never-added");
      await store.removeMember("no-such-set", "T1");
      expect(await store.listMembers("teams")).toEqual(["T1"]);
      expect(await store.listMembers("team:T1")).toEqual(["T2"]);
      await store.removeMember("teams", "T1");
      expect(await store.listMembers("teams")).toEqual([]);
      await store.addMember("teams", "T1");
      expect(await store.listMembers("teams")).toEqual(["T1"]);
    });

    it("lists the keys of a namespace that start with a prefix, odd characters and all", async () => {
      const store = await fresh();
      for (const key of ["j1:a", "j1:b", "j1*:c", "j1?[x]:d", "j10:e", "j2:f"]) {
        await store.set("blobs", key, { key });
      }
      await store.set("jobs", "j1:not-a-blob", {});
      expect((await store.listKeys("blobs", "j1:")).sort()).toEqual(["j1:a", "j1:b"]);
      expect(await store.listKeys("blobs", "j1*")).toEqual(["j1*:c"]);
      expect(await store.listKeys("blobs", "j1?[x]")).toEqual(["j1?[x]:d"]);
      expect((await store.listKeys("blobs", "")).sort()).toEqual(
        ["j1*:c", "j1:a", "j1:b", "j10:e", "j1?[x]:d", "j2:f"].sort(),
      );
      expect(await store.listKeys("templates", "")).toEqual([]);
      await store.delete("blobs", "j1:a");
      expect(await store.listKeys("blobs", "j1:")).toEqual(["j1:b"]);
    });

    it("scrubs without changing what is kept, and rejects once closed", async () => {
      const store = await fresh();
      await store.set("settings", "T1:C1", { contextText: "kept" });
      await store.set("jobs", "gone", { transcript: "deleted" });
      await store.delete("jobs", "gone");
      await store.scrub();
      await store.scrub();
      expect(await store.get("settings", "T1:C1")).toEqual({ contextText: "kept" });
      expect(await store.get("jobs", "gone")).toBeUndefined();
      await store.set("jobs", "after", { ok: true });
      expect(await store.get("jobs", "after")).toEqual({ ok: true });
      await store.close();
      await expect(store.scrub()).rejects.toThrow(StoreClosedError);
    });
  });
}
