/**
 * Slack's Web API failing for 60 s each way, its events still arriving: refusing
 * connections, answering 503 (an outage page), and forwarding every call and losing its
 * answer (the call was carried out; the bot cannot know). The proxy stands in front of the
 * API, the file downloads and the upload URLs alike. `/readyz` is 503 while Slack cannot be
 * reached; each post exists once afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFault } from "../../support/faults/fault-run.ts";
import { faultMs } from "../../support/faults/fault-scale.ts";
import { type FaultWorld, startFaultWorld } from "../../support/faults/fault-world.ts";

const OUTAGE_MS = faultMs(60);
/**
 * A runner step whose Slack call failed is tried again at waits doubling from 2 s: the try
 * after an outage of D comes at most about D after its end; `auth.test` is asked every 5 s
 * while it fails, and a few seconds of work follow.
 */
const RECOVERY_BOUND_MS = OUTAGE_MS + 20_000;

let world: FaultWorld;
beforeAll(async () => {
  world = await startFaultWorld();
  await world.start();
});
afterAll(() => world?.stop());

describe("Slack failing for 60 s", () => {
  it("refusing connections: nothing lost or twice, ready again within the bound", async () => {
    const result = await runFault(world, {
      what: "slack-refusing-60s",
      durationMs: OUTAGE_MS,
      on: () => world.slackProxy.refuseConnections(),
      off: () => world.slackProxy.start(),
      notReady: true,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it("answering 503: nothing lost or twice, ready again within the bound", async () => {
    const result = await runFault(world, {
      what: "slack-503-60s",
      durationMs: OUTAGE_MS,
      on: async () => void world.slackProxy.add({ fault: "refuse_503" }),
      off: async () => world.slackProxy.heal(),
      notReady: true,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it("carrying out calls and losing the answers: each post once, ready again within the bound", async () => {
    const result = await runFault(world, {
      what: "slack-losing-answers-60s",
      durationMs: OUTAGE_MS,
      on: async () => void world.slackProxy.add({ fault: "lose_503" }),
      off: async () => world.slackProxy.heal(),
      notReady: true,
      recoveryBoundMs: RECOVERY_BOUND_MS,
    });
    expect(result.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });
});
