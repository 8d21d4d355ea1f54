import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { KeyedMutex } from "../../src/util/keyed-mutex.ts";

describe("KeyedMutex", () => {
  it("runs sections of one key one at a time, in call order", async () => {
    const mutex = new KeyedMutex();
    const events: string[] = [];
    // The sleeps are the sections' work taking real time, so that a mutex letting them
    // overlap would show it in the order of events.
    const section = (name: string, ms: number) =>
      mutex.run("k", async () => {
        events.push(`start ${name}`);
        await sleep(ms);
        events.push(`end ${name}`);
        return name;
      });
    expect(await Promise.all([section("a", 20), section("b", 1), section("c", 5)])).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect(events).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("lets other keys run alongside, and a failure not block the next section", async () => {
    const mutex = new KeyedMutex();
    const events: string[] = [];
    const slow = mutex.run("a", async () => {
      // Work that takes real time: "b" runs meanwhile, not after it.
      await sleep(30);
      events.push("a");
    });
    await mutex.run("b", async () => {
      events.push("b");
    });
    const failing = mutex.run("a", async () => {
      throw new Error("boom");
    });
    const after = mutex.run("a", async () => "after");
    await expect(failing).rejects.toThrow("boom");
    expect(await after).toBe("after");
    await slow;
    expect(events).toEqual(["b", "a"]);
    await mutex.idle();
  });
});
