/**
 * A step that crashes because the store failed under it leaves its lease held and its job
 * hidden behind the claim (due a lease time later): the fault suite found such a job
 * stranded for the whole lease (60 s) after SQLite could write again, and every Skip
 * meanwhile told "That job is busy". The pump gives it back once the store answers.
 */

import { pino } from "pino";
import { afterEach, expect, it } from "vitest";
import { DuePump } from "../../src/jobs/engine/due-pump.ts";
import type { DueClaim, Store } from "../../src/store/index.ts";
import { openMemoryStore } from "../../src/store/sqlite-store.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { StoreFault } from "../../support/helpers/failing-store.ts";

const LEASE_TTL_MS = 60_000;
let pump: DuePump | undefined;
let store: Store | undefined;
afterEach(async () => {
  pump?.stop();
  await store?.close();
});

it("gives a crashed job back to the due queue, its lease released, once the store answers", async () => {
  const fault = new StoreFault();
  const real = openMemoryStore({ keyPrefix: "give-back", sweepIntervalMs: 0 });
  store = fault.wrap(real);
  const claims: DueClaim[] = [];
  pump = new DuePump({
    store,
    logger: pino({ level: "silent" }),
    now: () => real.now(),
    leasePrefix: "lease:",
    leaseTtlMs: LEASE_TTL_MS,
    capacity: 4,
    checkMs: 50,
    gapMs: 5,
    drive: async (claim) => {
      claims.push(claim);
      if (claims.length > 1) return;
      // The store stops writing mid-step: the step's save fails, so does every write after.
      fault.mode = "writes";
      throw new Error("injected store failure: set");
    },
  });
  await real.schedule("job-1", real.now());
  pump.start();
  await eventually(
    () => claims.length,
    (n) => n === 1,
  );
  // The claim hid the job for a lease time; nothing gives it back while writes fail.
  expect(await real.acquireLease("lease:job-1", 1_000)).toBeUndefined();

  fault.mode = "none";
  const started = performance.now();
  await eventually(
    () => claims.length,
    (n) => n === 2,
    { what: "the job claimed again", timeoutMs: 5_000 },
  );
  // Within the give-back's first waits, not the lease's 60 s.
  expect(performance.now() - started).toBeLessThan(5_000);
  expect(claims[1]?.jobId).toBe("job-1");
});
