import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.ts";
import { openMemoryStore } from "../../src/store/sqlite-store.ts";
import { describeCompareAndSetContract } from "../../support/store/compare-and-set-contract.ts";
import { describeForgetContract } from "../../support/store/forget-contract.ts";
import { describeStoreContract } from "../../support/store/store-contract.ts";

describeStoreContract("memory", { open: () => openStore("memory://") });
describeForgetContract("memory", () => openStore("memory://"));
describeCompareAndSetContract("memory", () => openStore("memory://"));

describe("memory store", () => {
  it("reports its kind and drops expired entries when swept", async () => {
    const store = openMemoryStore({ keyPrefix: "t", sweepIntervalMs: 0 });
    expect(store.kind).toBe("memory");
    await store.set("jobs", "short", 1, 10);
    await store.set("jobs", "kept", 2);
    // Real time on purpose: the store keeps wall-clock expiry times; let the 10 ms one age.
    await sleep(30);
    expect(await store.sweepExpired()).toBe(1);
    expect(await store.sweepExpired()).toBe(0);
    expect(await store.get("jobs", "kept")).toBe(2);
    await store.close();
  });
});
