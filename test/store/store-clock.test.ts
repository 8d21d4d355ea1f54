import { describe, expect, it } from "vitest";
import { StoreClock } from "../../src/store/store-clock.ts";

/** Clocks the test sets by hand. */
function sources(wall: number) {
  const s = { wall, mono: 500 };
  return { s, clock: new StoreClock({ wall: () => s.wall, mono: () => s.mono }) };
}

describe("StoreClock", () => {
  it("reads the wall clock once, then advances with the monotonic clock only", () => {
    const { s, clock } = sources(1_000_000);
    expect(clock.now()).toBe(1_000_000);
    s.mono += 250;
    s.wall -= 600_000;
    expect(clock.now()).toBe(1_000_250);
    s.wall += 1_200_000;
    s.mono += 750;
    expect(clock.now()).toBe(1_001_000);
  });

  it("moves forward to a later time, never back", () => {
    const { clock } = sources(1_000_000);
    clock.advanceTo(999_000);
    expect(clock.now()).toBe(1_000_000);
    clock.advanceTo(1_600_000);
    expect(clock.now()).toBe(1_600_000);
  });

  it("takes a reference reading as read halfway through its round trip, and ignores wobble within it", () => {
    const { s, clock } = sources(1_000_000);
    expect(clock.synced).toBe(false);
    // Redis says 400_000 while the call took 10 ms (mono 500 → 510).
    expect(clock.sync(400_000, 500, 510)).toBe(400_000 - 1_000_005);
    s.mono = 505;
    expect(clock.now()).toBe(400_000);
    expect(clock.synced).toBe(true);
    // Within half the round trip (and a ms): no change.
    expect(clock.sync(400_006, 505, 515)).toBe(0);
    expect(clock.now()).toBe(400_000);
    // Outside it: the reference was set; follow it.
    expect(clock.sync(460_005, 505, 515)).toBe(60_000);
    expect(clock.now()).toBe(460_000);
  });
});
