import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspaceData } from "../../src/jobs/persistence/workspace-data.ts";
import { openStore, type Store } from "../../src/store/index.ts";

let store: Store;
let data: WorkspaceData;
beforeEach(async () => {
  store = await openStore("memory://");
  data = new WorkspaceData(store, pino({ level: "silent" }));
});
afterEach(() => store.close());

describe("WorkspaceData", () => {
  it("lists every team id data was noted under, once each", async () => {
    expect(await data.teamIds()).toEqual([]);
    await data.note("T_INSTALLED", "jobs", "j1");
    await data.note("T_INSTALLED", "settings", "T_INSTALLED:C1");
    await data.note("T_SOURCE", "jobs", "j2");
    await data.noteIndex("E_INSTALLED", "user:E_INSTALLED:U1");
    expect((await data.teamIds()).sort()).toEqual(["E_INSTALLED", "T_INSTALLED", "T_SOURCE"]);
    expect(await data.keysOf("T_INSTALLED")).toEqual({
      jobIds: ["j1"],
      values: [{ ns: "settings", key: "T_INSTALLED:C1" }],
      indexes: [],
    });
    expect(await data.keysOf("E_INSTALLED")).toEqual({
      jobIds: [],
      values: [],
      indexes: ["user:E_INSTALLED:U1"],
    });
  });

  it("deletes a team's listed values, indexes and list, and takes it off the teams", async () => {
    await store.set("settings", "T1:C1", { contextText: "agenda" });
    await store.pushIndex("channel:T1:C1", "j1");
    await data.note("T1", "settings", "T1:C1");
    await data.noteIndex("T1", "channel:T1:C1");
    await data.note("T2", "settings", "T2:C1");
    await data.deleteListed("T1", await data.keysOf("T1"));
    expect(await store.get("settings", "T1:C1")).toBeUndefined();
    expect(await store.listIndex("channel:T1:C1")).toEqual([]);
    expect(await store.listMembers("team:T1")).toEqual([]);
    expect(await data.teamIds()).toEqual(["T2"]);
    expect(await data.keysOf("T2")).toMatchObject({ values: [{ ns: "settings", key: "T2:C1" }] });
  });

  it("lists the team before noting its data: a failure between the two hides nothing", async () => {
    const failing = failingOn(store, "addMember", (set) => set.startsWith("team:"));
    const broken = new WorkspaceData(failing, pino({ level: "silent" }));
    await expect(broken.note("T9", "jobs", "j9")).rejects.toThrow("the store went away");
    expect(await data.teamIds()).toEqual(["T9"]);
  });

  it("keeps a team listed until its list is deleted, so a retry finds what is left", async () => {
    await data.note("T1", "settings", "T1:C1");
    const keys = await data.keysOf("T1");
    const failing = failingOn(store, "deleteSet", () => true);
    await expect(
      new WorkspaceData(failing, pino({ level: "silent" })).deleteListed("T1", keys),
    ).rejects.toThrow("the store went away");
    expect(await data.teamIds()).toEqual(["T1"]);
    await data.deleteListed("T1", keys);
    expect(await data.teamIds()).toEqual([]);
  });
});

/** The store, but `method` rejects for the sets `when` picks. */
function failingOn(
  target: Store,
  method: "addMember" | "deleteSet",
  when: (set: string) => boolean,
): Store {
  return new Proxy(target, {
    get(_, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      const bound = value.bind(target);
      if (name !== method) return bound;
      return async (set: string, ...rest: unknown[]) => {
        if (when(set)) throw new Error("the store went away");
        return bound(set, ...rest);
      };
    },
  });
}
