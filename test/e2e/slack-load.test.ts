import { describe, expect, it } from "vitest";
import { LOAD_TEST, runSlackLoad } from "../../support/bench/slack-load.ts";

/*
 * A hundred recordings at once in one workspace over five channels, against a fake Slack
 * that enforces Slack's rate tiers (scaled to run in seconds; the benchmark runs the same at
 * Slack's documented tiers), Slack answering some status updates 429 besides: every job ends
 * with its note and DOCX, nothing is lost or posted twice, no call goes inside a Retry-After,
 * and every person waiting is answered within Slack's 3 seconds.
 */
describe("a busy workspace within Slack's rate tiers", () => {
  it("drives 100 recordings over 5 channels to their notes, within the tiers and the deadlines", async () => {
    const result = await runSlackLoad(LOAD_TEST);
    expect({
      done: result.done,
      failed: result.failed,
      lost: result.lost,
      duplicated: result.duplicated,
      insideRetryAfter: result.insideRetryAfter,
    }).toEqual({ done: 100, failed: 0, lost: 0, duplicated: 0, insideRetryAfter: 0 });
    // Slack pushed back only where it was made to; the bot waited each Retry-After out.
    expect(result.rateLimited).toBe(5);
    // A person waiting is answered (Slack's 3 seconds are the benchmark's to measure, on a
    // quiet machine: support/bench/RESULTS.md; beside another suite, this bound only tells an
    // answer from none).
    expect(result.slowestAckMs).toBeLessThan(10_000);
    expect(result.slowestViewsOpenMs).toBeLessThan(10_000);
    // A hundred upload events in the same instant, with the fake Slack and the emulator in
    // this process: ~1 s on a quiet machine (support/bench/RESULTS.md), up to 3.6 s when other test files
    // load both cores. Slack would send a late one again, and the claim makes it one job;
    // the bound is the ceiling of a loaded machine.
    expect(result.slowestUploadAckMs).toBeLessThan(10_000);
    // Each job's notes and DOCX reached Slack once.
    expect(result.calls["files.completeUploadExternal"]).toBeGreaterThanOrEqual(100);
  }, 300_000);
});
