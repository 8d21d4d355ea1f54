/**
 * The budget's clock is monotonic: the fault suite set the bot's wall clock back while it
 * ran, and every bucket refilled by a negative time — about 400 calls owed — so each Slack
 * method's calls stalled for as long as the clock had moved.
 */
import { afterEach, expect, it, vi } from "vitest";
import { TokenBucket } from "../../../src/slack/rate-budget/token-bucket.ts";

afterEach(() => vi.restoreAllMocks());

it("lets the next call go after the wall clock is set 10 minutes back", () => {
  const realNow = Date.now.bind(Date);
  let offset = 0;
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + offset);
  // Tier 3: 50 a minute.
  const bucket = new TokenBucket({ perMinute: 50, burst: 2 });
  void bucket.take();
  offset = -10 * 60_000;
  // One token is left: the next call goes at once, whatever the wall clock says.
  expect(bucket.waitMs).toBe(0);
});
