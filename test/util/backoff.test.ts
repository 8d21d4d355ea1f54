import { describe, expect, it } from "vitest";
import { BACKOFFS, backoffDelayMs, isTransientStatus } from "../../src/util/backoff.ts";

const waits = (policy: Parameters<typeof backoffDelayMs>[0], random = () => 0) =>
  [0, 1, 2, 3, 4, 5, 6, 9, 40].map((attempt) => backoffDelayMs(policy, attempt, random));

describe("backoff", () => {
  it.each([
    ["noteServiceRequest", [500, 1000, 2000, 4000, 8000, 8000, 8000, 8000, 8000]],
    ["jobStep", [2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 300_000, 300_000]],
    ["redisReconnect", [100, 200, 400, 800, 1000, 1000, 1000, 1000, 1000]],
    ["slackReconnect", [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]],
    ["journalReplay", [1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000, 10_000]],
    ["giveBack", [1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000, 10_000]],
    ["slackResend", [250, 1000, 4000, 16_000, 60_000, 60_000, 60_000, 60_000, 60_000]],
  ] as const)("%s grows to its cap (no jitter drawn)", (name, expected) => {
    expect(waits(BACKOFFS[name])).toEqual(expected);
  });

  it("the poll schedule's jitter goes both ways and never passes the cap", () => {
    expect(waits(BACKOFFS.notePoll, () => 0).slice(0, 4)).toEqual([1800, 3600, 7200, 13_500]);
    expect(waits(BACKOFFS.notePoll, () => 1).slice(0, 4)).toEqual([2200, 4400, 8800, 15_000]);
  });

  it("adds at most the jitter's fraction, and nothing without one", () => {
    expect(backoffDelayMs(BACKOFFS.noteServiceRequest, 1, () => 1)).toBe(1200);
    expect(backoffDelayMs(BACKOFFS.redisReconnect, 9, () => 1)).toBe(1100);
    expect(backoffDelayMs(BACKOFFS.slackReconnect, 2, () => 1)).toBe(4000);
  });

  it("reads a negative attempt as the first", () => {
    expect(backoffDelayMs(BACKOFFS.journalReplay, -1)).toBe(1000);
  });

  it.each([
    [408, true],
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [404, false],
    [200, false],
  ])("status %i is transient: %s", (status, transient) => {
    expect(isTransientStatus(status)).toBe(transient);
  });
});
