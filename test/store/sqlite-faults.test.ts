import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store, StoreError } from "../../src/store/index.ts";
import { HAS_PRLIMIT, refuseFileWrites } from "../../support/helpers/file-size-limit.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

describe.skipIf(!HAS_PRLIMIT)("the SQLite store on a disk that takes no more writes", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let store: Store;
  beforeAll(async () => {
    temp = await makeTempDir("mn-sqlite-faults-");
    store = await openStore(`sqlite://${join(temp.dir, "full.sqlite")}`);
  });
  afterAll(async () => {
    await store.close();
    await temp.cleanup();
  });

  it("rejects every write with an error naming SQLite, still reads, and writes again once it can", async () => {
    await store.set("jobs", "a", { v: 0 });
    const writes: Record<string, () => Promise<unknown>> = {
      set: () => store.set("jobs", "a", { v: 1 }),
      delete: () => store.delete("jobs", "a"),
      touch: () => store.touch("jobs", "a", 60_000),
      claim: () => store.claim("upload:C:F", 60_000),
      addActive: () => store.addActive("job-1", "queued"),
      schedule: () => store.schedule("job-1", Date.now()),
      pushIndex: () => store.pushIndex("user:T:U", "job-1"),
      addMember: () => store.addMember("workspace:T", "job-1"),
    };
    const outcomes: Record<string, unknown> = {};
    const restore = refuseFileWrites();
    try {
      for (const [name, write] of Object.entries(writes)) {
        outcomes[name] = await write().then(
          () => "succeeded",
          (error: unknown) => error,
        );
      }
      outcomes.get = await store.get("jobs", "a");
    } finally {
      restore();
    }
    for (const name of Object.keys(writes)) {
      expect(outcomes[name], name).toBeInstanceOf(StoreError);
      expect(String(outcomes[name]), name).toMatch(/SQLite call failed: disk I\/O error/);
    }
    expect(outcomes.get).toEqual({ v: 0 });
    await store.set("jobs", "a", { v: 2 });
    expect(await store.get("jobs", "a")).toEqual({ v: 2 });
    expect(await store.claim("upload:C:F", 60_000)).toBe(true);
  });
});
