/**
 * Redis failing under the bot (its store, `STORE_URL=redis://…`): paused for 30 s (SIGSTOP:
 * connections open, nothing answered), killed for 30 s and started again with its data, and
 * restarted empty (its data lost). A private redis-server of this test's own. The pause
 * again under Socket Mode, where every envelope must still be acked within Slack's 3 s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFault } from "../../support/faults/fault-run.ts";
import { faultMs, MIN_FAULT_MS } from "../../support/faults/fault-scale.ts";
import { type FaultWorld, startFaultWorld } from "../../support/faults/fault-world.ts";
import { HAS_REDIS_SERVER } from "../../support/helpers/redis-server.ts";

/**
 * Every Redis call has a 2 s deadline, the request journal is replayed at waits doubling
 * up to 10 s, and `/readyz` writes every 5 s: every upload has its job and the bot is ready
 * within 15 s of Redis answering again, and each job ends a
 * few seconds later (download, transcript, note and delivery take ~3 s).
 */
const RECOVERY_BOUND_MS = 20_000;

let world: FaultWorld;
const redis = () => {
  if (world.redis === undefined) throw new Error("the world has no Redis");
  return world.redis;
};

describe.skipIf(!HAS_REDIS_SERVER)("Redis failing", () => {
  beforeAll(async () => {
    world = await startFaultWorld({ store: "redis" });
    await world.start();
  });
  afterAll(() => world?.stop());

  it("paused for 30 s: nothing lost or twice, ready again within the bound", async () => {
    const result = await runFault(world, {
      what: "redis-paused-30s",
      durationMs: faultMs(30),
      on: async () => redis().pause(),
      off: async () => redis().resume(),
      notReady: true,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it("killed for 30 s, back with its data: nothing lost or twice, ready again within the bound", async () => {
    const result = await runFault(world, {
      what: "redis-killed-30s",
      durationMs: faultMs(30),
      on: () => redis().kill(),
      off: () => redis().start(),
      notReady: true,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it("restarted empty: the lost job is said lost once, uploads after it are one job each", async () => {
    const result = await runFault(world, {
      what: "redis-restarted-empty",
      // The loss is a moment; the uploads are made over the time that follows it.
      durationMs: MIN_FAULT_MS,
      on: () => redis().restartEmpty(),
      off: async () => {},
      notReady: false,
      recoveryBoundMs: RECOVERY_BOUND_MS,
      allowed: ["done", "lost"],
    });
    expect(result.outcomes[0]?.endings).toEqual(["lost"]);
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });
});

describe.skipIf(!HAS_REDIS_SERVER)("Redis paused under Socket Mode", () => {
  let socketWorld: FaultWorld;
  beforeAll(async () => {
    socketWorld = await startFaultWorld({ store: "redis", socketMode: true });
    await socketWorld.start();
  });
  afterAll(() => socketWorld?.stop());

  it("acks every envelope within 3 s while Redis hangs, and loses nothing", async () => {
    const result = await runFault(socketWorld, {
      what: "redis-paused-30s-socket-mode",
      durationMs: faultMs(30),
      on: async () => socketWorld.redis?.pause(),
      off: async () => socketWorld.redis?.resume(),
      notReady: true,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
    // Every envelope of the run acked, none needing Slack's redelivery.
    const deliveries = socketWorld.fake.socket?.deliveries ?? [];
    expect(deliveries.filter((d) => d.ackedAt === undefined)).toEqual([]);
    expect(Math.max(...deliveries.map((d) => d.ackMs ?? Infinity))).toBeLessThan(3_000);
  });
});
