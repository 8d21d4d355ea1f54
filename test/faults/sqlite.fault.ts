/**
 * SQLite unable to write for 60 s (the disk of the store full or read-only): the bot's store
 * sits behind a switch that fails every call that writes, as `node:sqlite` fails them.
 * Uploads made meanwhile are kept in the request journal and become one job each once the
 * store writes again; clicks are answered with a sentence; `/readyz` is 503 meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFault } from "./fault-run.ts";
import { faultMs } from "./fault-scale.ts";
import { type FaultWorld, startFaultWorld } from "./fault-world.ts";
import { setStoreFault } from "./switches.ts";

/**
 * The journal is replayed at waits doubling from 1 s to 10 s, and `/readyz` writes to the
 * store every 5 s: every upload has its job, and the bot is ready, within 15 s of the end, and
 * each job ends a few seconds later (download, transcript, note and delivery take ~3 s).
 */
const RECOVERY_BOUND_MS = 20_000;

let world: FaultWorld;
beforeAll(async () => {
  world = await startFaultWorld({ storeSwitch: true });
  await world.start();
});
afterAll(() => world?.stop());

describe("SQLite unable to write", () => {
  it("loses no upload, does nothing twice, and is ready again within the bound", async () => {
    const result = await runFault(world, {
      what: "sqlite-unwritable-60s",
      durationMs: faultMs(60),
      on: () => setStoreFault(world, "writes"),
      off: () => setStoreFault(world, "none"),
      notReady: true,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });
});
