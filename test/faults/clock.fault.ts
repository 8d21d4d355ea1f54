/**
 * The wall clock moved under the running bot and left there (an operator setting the
 * host's clock, NTP stepping it): 10 minutes forward, then from there 20 minutes back, to 10
 * minutes behind. Its monotonic clock does not move, Slack's request timestamps stay true.
 * Uploads and clicks after each jump are taken, each job ends done once, and nothing waits
 * for the clock to come back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFault } from "../../support/faults/fault-run.ts";
import { MIN_FAULT_MS } from "../../support/faults/fault-scale.ts";
import { type FaultWorld, startFaultWorld } from "../../support/faults/fault-world.ts";
import { shiftClock } from "../../support/faults/switches.ts";

const TEN_MINUTES_MS = 10 * 60_000;
/** Nothing in a job waits on the wall clock: the jobs end as soon as their work allows. */
const RECOVERY_BOUND_MS = 15_000;

let world: FaultWorld;
beforeAll(async () => {
  world = await startFaultWorld({ movableClock: true });
  await world.start();
});
afterAll(() => world?.stop());

describe("the wall clock moved under the bot", () => {
  for (const [direction, offset] of [
    ["ahead", TEN_MINUTES_MS],
    ["behind", -TEN_MINUTES_MS],
  ] as const) {
    it(`set to 10 minutes ${direction}: every request taken, each job done once`, async () => {
      const result = await runFault(world, {
        what: `clock-${direction}-10min`,
        // The jump is a moment; the uploads and clicks are made over the time that follows.
        durationMs: MIN_FAULT_MS,
        on: () => shiftClock(world, offset),
        // The clock stays where it was set.
        off: async () => {},
        notReady: false,
        recoveryBoundMs: RECOVERY_BOUND_MS,
      });
      expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
    });
  }
});
