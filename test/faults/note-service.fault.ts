/**
 * The Note Service failing for 2 min each way: refusing connections (its host down),
 * answering 503 to everything, and hanging (taking requests and never answering). Jobs
 * transcribing, waiting to be written and uploaded meanwhile all end done, once each; the
 * Slack side goes on (`/readyz` stays 200: the bot can still take requests).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANSWER_AFTER_BODY_MS } from "../../src/notetaker/api-call.ts";
import { runFault } from "../../support/faults/fault-run.ts";
import { faultMs } from "../../support/faults/fault-scale.ts";
import { type FaultWorld, startFaultWorld } from "../../support/faults/fault-world.ts";

const OUTAGE_MS = faultMs(120);
/**
 * A step that failed is tried again at waits doubling from 2 s (production's policy; the
 * client retries in-line first): the try after an outage of D comes at most about D after
 * its end (the wait before it doubled past the outage's length), plus 30 s for the client's
 * own retries and a few seconds of work.
 */
const RECOVERY_BOUND_MS = OUTAGE_MS + 30_000;
/**
 * Hanging, a request sent in the outage's last moment waits out its time-out first: a
 * minute for the answer to an upload (from its last byte), 30 s for any other call.
 */
const HANGING_BOUND_MS = RECOVERY_BOUND_MS + ANSWER_AFTER_BODY_MS;

let world: FaultWorld;
beforeAll(async () => {
  world = await startFaultWorld();
  await world.start();
});
afterAll(() => world?.stop());

describe("the Note Service failing for 2 minutes", () => {
  it("refusing connections: every job ends done once, within the bound", async () => {
    const result = await runFault(world, {
      what: "note-service-refusing-2min",
      durationMs: OUTAGE_MS,
      on: () => world.noteProxy.refuseConnections(),
      off: () => world.noteProxy.start(),
      notReady: false,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it("answering 503 to everything: every job ends done once, within the bound", async () => {
    const result = await runFault(world, {
      what: "note-service-503-2min",
      durationMs: OUTAGE_MS,
      on: async () => void world.noteProxy.add({ fault: "refuse_503" }),
      off: async () => world.noteProxy.heal(),
      notReady: false,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it("hanging (never answering): every job ends done once, within the bound", async () => {
    const result = await runFault(world, {
      what: "note-service-hanging-2min",
      durationMs: OUTAGE_MS,
      on: async () => void world.noteProxy.add({ fault: "hang" }),
      off: async () => world.noteProxy.heal(),
      notReady: false,
      recoveryBoundMs: HANGING_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(HANGING_BOUND_MS);
  });
});
