/**
 * SQLite unable to write for 60 s, twice: behind a switch that fails every call that writes
 * (as `node:sqlite` fails them on a read-only file), where uploads made meanwhile are kept
 * in the request journal and become one job each once the store writes again; and on a real
 * disk filled up (a tmpfs of its own), where the journal beside the file cannot keep them
 * either and each upload's thread hears once that it was not taken. Clicks are answered
 * with a sentence; `/readyz` is 503 meanwhile.
 */
import { statfsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFault } from "../../support/faults/fault-run.ts";
import { faultMs } from "../../support/faults/fault-scale.ts";
import {
  CAN_MOUNT_TMPFS,
  type FaultWorld,
  startFaultWorld,
} from "../../support/faults/fault-world.ts";
import { setStoreFault } from "../../support/faults/switches.ts";

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

/** The store's own disk, filled up by something else: 16 MB, all taken. */
const DISK_BYTES = 16 * 1024 * 1024;

describe.skipIf(!CAN_MOUNT_TMPFS)("SQLite's disk really full (a tmpfs filled up)", () => {
  let full: FaultWorld;
  const filler = () => `${full.storeDir}/filler`;
  beforeAll(async () => {
    full = await startFaultWorld({ tmpfs: { bytes: DISK_BYTES, under: "store" } });
    await full.start();
  });
  afterAll(() => full?.stop());

  it("says once of each upload it could not keep, does nothing twice, and is ready again within the bound", async () => {
    const result = await runFault(full, {
      what: "sqlite-disk-full-60s",
      durationMs: faultMs(60),
      on: () => fillUp(filler()),
      off: () => rm(filler()),
      notReady: true,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });
});

/** Writes `path` until the disk it is on has no room left (ENOSPC is the point). */
async function fillUp(path: string): Promise<void> {
  const { bavail, bsize } = statfsSync(dirname(path));
  await writeFile(path, Buffer.alloc(Number(bavail) * Number(bsize), 1)).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOSPC") throw error;
    },
  );
}
