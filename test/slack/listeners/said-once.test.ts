import { describe, expect, it } from "vitest";
import { SaidOnce } from "../../../src/slack/listeners/said-once.ts";

describe("SaidOnce", () => {
  it("says a thing once within its time, and again once that time is over", () => {
    const clock = { now: 1_000 };
    const said = new SaidOnce({ ttlMs: 60_000, now: () => clock.now });
    expect(said.first("C1:F1")).toBe(true);
    expect(said.first("C1:F1")).toBe(false);
    expect(said.first("C1:F2")).toBe(true);
    clock.now += 59_999;
    expect(said.first("C1:F1")).toBe(false);
    clock.now += 2;
    expect(said.first("C1:F1")).toBe(true);
  });

  it("forgets the oldest past its size", () => {
    const said = new SaidOnce({ max: 2 });
    for (const key of ["a", "b", "c"]) expect(said.first(key)).toBe(true);
    expect(said.first("c")).toBe(false);
    expect(said.first("b")).toBe(false);
    expect(said.first("a")).toBe(true);
  });
});
