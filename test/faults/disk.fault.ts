/**
 * The disk of the bot's temp folder full during downloads: the folder is a tmpfs of its own,
 * filled up by another file as a disk is by something else, while recordings larger than
 * the room left are uploaded; the filler is removed after 30 s (an admin freeing space).
 * Each download that meets the full disk waits, saying so, and goes on once there is room.
 */
import { rm, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingBytes } from "../../support/fakes/recording-bytes.ts";
import { runFault } from "../../support/faults/fault-run.ts";
import { faultMs } from "../../support/faults/fault-scale.ts";
import {
  CAN_MOUNT_TMPFS,
  type FaultWorld,
  startFaultWorld,
} from "../../support/faults/fault-world.ts";

const DISK_BYTES = 32 * 1024 * 1024;
/** What the filler leaves free: less than one recording. */
const ROOM_LEFT = 1024 * 1024;
const RECORDING_BYTES = 3 * 1024 * 1024;
/**
 * `/readyz` looks at the disk every 10 s (each look allowed 3 s): it must say 503 within 13 s,
 * and a fault shortened for CI lasts longer than that.
 */
const NOTICED_MS = 13_000;
const FULL_MS = Math.max(faultMs(30), NOTICED_MS + 2_000);
/**
 * A download that found the disk full is tried again at waits doubling from 2 s: the try
 * after the disk was full for D comes at most about D after space is freed, and a few
 * seconds of work follow.
 */
const RECOVERY_BOUND_MS = FULL_MS + 20_000;

let world: FaultWorld;
const filler = () => `${world.tempFolder}/filler`;

describe.skipIf(!CAN_MOUNT_TMPFS)("the disk full during downloads", () => {
  beforeAll(async () => {
    world = await startFaultWorld({ tmpfs: { bytes: DISK_BYTES, under: "temp" } });
    await world.start();
  });
  afterAll(() => world?.stop());

  it("waits saying so, and each job ends done once after space is freed", async () => {
    const result = await runFault(world, {
      what: "disk-full-30s",
      durationMs: FULL_MS,
      on: () => writeFile(filler(), Buffer.alloc(DISK_BYTES - ROOM_LEFT, 1)),
      off: () => rm(filler()),
      recording: (name) => recordingBytes(name, RECORDING_BYTES),
      // The disk below its floor, and downloads finding it full.
      notReady: true,
      notReadyWithinMs: NOTICED_MS,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
    const shown = world.fake.calls
      .filter((c) => c.method === "chat.update")
      .map((c) => JSON.stringify(c.args));
    expect(shown.some((s) => s.includes("The disk I keep recordings on is full"))).toBe(true);
  });
});
