import { describe, expect, it } from "vitest";
import { InFlight } from "../../src/util/in-flight.ts";

describe("InFlight", () => {
  it("is idle at once when nothing runs, and only after the last of several finishes", async () => {
    const handling = new InFlight();
    await handling.idle();
    const releases: (() => void)[] = [];
    const hold = () => new Promise<void>((resolve) => releases.push(resolve));
    const first = handling.run(hold);
    const second = handling.run(hold);
    expect(handling.size).toBe(2);
    let idle = false;
    const waiting = handling.idle().then(() => {
      idle = true;
    });
    releases[0]?.();
    await first;
    expect(idle).toBe(false);
    releases[1]?.();
    await second;
    await waiting;
    expect(idle).toBe(true);
    expect(handling.size).toBe(0);
  });

  it("counts work that fails, and passes its failure on", async () => {
    const handling = new InFlight();
    await expect(handling.run(() => Promise.reject(new Error("listener threw")))).rejects.toThrow(
      "listener threw",
    );
    expect(handling.size).toBe(0);
    await handling.idle();
  });
});
