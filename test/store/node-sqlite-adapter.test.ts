import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeSqliteAdapter } from "../../src/store/node-sqlite-adapter.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir("mn-node-sqlite-");
});
afterAll(async () => {
  await temp.cleanup();
});

describe("NodeSqliteAdapter.claim", () => {
  it("takes a free key once, refuses it while it lives, and takes it again once expired", async () => {
    const adapter = new NodeSqliteAdapter(join(temp.dir, "claims.sqlite"));
    const t0 = 1_000_000;
    expect(adapter.claim("k", "first", 100, t0)).toBe(true);
    expect(adapter.claim("k", "second", 100, t0 + 99)).toBe(false);
    expect(await adapter.get("k")).toBe("first");
    // Expired but not yet swept: the claim takes the row over, with its new expiry.
    expect(adapter.claim("k", "third", 100, t0 + 100)).toBe(true);
    expect(await adapter.get("k")).toBe("third");
    expect(adapter.sweepExpired(t0 + 199)).toBe(0);
    expect(adapter.sweepExpired(t0 + 201)).toBe(1);
    await adapter.disconnect();
  });

  it("never takes a key written without an expiry", async () => {
    const adapter = new NodeSqliteAdapter(join(temp.dir, "forever.sqlite"));
    await adapter.set("k", "kept");
    expect(adapter.claim("k", "claim", 100, Date.now() + 10 ** 9)).toBe(false);
    expect(await adapter.get("k")).toBe("kept");
    await adapter.disconnect();
  });

  it("lets one of many claims of a key made at once win", async () => {
    const path = join(temp.dir, "race.sqlite");
    // Two connections to one file, as two stores of one process would be.
    const [a, b] = [new NodeSqliteAdapter(path), new NodeSqliteAdapter(path)];
    const wins = Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? a : b).claim("k", `${i}`, 60_000),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    await Promise.all([a.disconnect(), b.disconnect()]);
  });
});
