import { describe, expect, it } from "vitest";
import { createPollSchedule } from "../../src/notetaker/index.ts";
import {
  defaultRetryPolicy,
  parseRetryAfter,
  retryDelayMs,
} from "../../src/notetaker/retry-policy.ts";

describe("poll schedule", () => {
  it("starts at 2 s, doubles and caps at 15 s without jitter", () => {
    const schedule = createPollSchedule({ initialMs: 2000, maxMs: 15_000, jitter: 0 });
    expect([0, 1, 2, 3, 4, 50].map((n) => schedule.delayMs(n))).toEqual([
      2000, 4000, 8000, 15_000, 15_000, 15_000,
    ]);
  });

  it("adds at most the configured jitter and never passes the cap", () => {
    const low = createPollSchedule({
      initialMs: 2000,
      maxMs: 15_000,
      jitter: 0.1,
      random: () => 0,
    });
    const high = createPollSchedule({
      initialMs: 2000,
      maxMs: 15_000,
      jitter: 0.1,
      random: () => 1,
    });
    expect(low.delayMs(0)).toBe(1800);
    expect(high.delayMs(0)).toBe(2200);
    expect(high.delayMs(10)).toBe(15_000);
  });
});

describe("retry policy", () => {
  it("backs off exponentially with a cap, and lets Retry-After win", () => {
    const policy = { ...defaultRetryPolicy, jitter: 0 };
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, undefined))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(retryDelayMs(policy, 0, 3000)).toBe(3000);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-21T10:00:00Z");
    expect(parseRetryAfter("7", now)).toBe(7000);
    expect(parseRetryAfter("Sat, 21 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
