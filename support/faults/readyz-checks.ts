import { expect } from "vitest";
import type { FaultWorld } from "./fault-world.ts";
import { READYZ_ANSWER_MS } from "./readyz-watch.ts";

/**
 * How soon `/readyz` must say 503 once the store cannot write or Slack cannot be reached:
 * the store is written every 5 s and Slack asked every 5 s while failing (at once when one
 * of the bot's calls fails), each try allowed 3 s.
 */
export const READYZ_NOTICES_MS = 9_000;

/**
 * `/readyz` through a fault from `start` to `end` (`performance.now()` times): every answer
 * within 1 s; when `notReady`, 503 within {@link READYZ_NOTICES_MS} of the start and from
 * then until the end, and 200 again afterwards.
 */
export function expectReadyzThrough(
  world: FaultWorld,
  fault: { start: number; end: number; notReady: boolean; noticesWithinMs?: number },
): void {
  const answers = world.readyz.between(fault.start);
  expect(answers.length, "/readyz was asked through the fault").toBeGreaterThan(3);
  const slowest = Math.max(...answers.map((a) => (a.status === 0 ? Infinity : a.ms)));
  expect(world.readyz.late(), `every /readyz answer within ${READYZ_ANSWER_MS} ms`).toEqual([]);
  console.info(`FAULT /readyz: ${answers.length} answers, slowest ${Math.round(slowest)} ms`);
  const after = world.readyz.firstAfter(fault.end, 200);
  expect(after, "/readyz 200 again after the fault").toBeDefined();
  if (!fault.notReady) return;
  const first503 = world.readyz.firstAfter(fault.start, 503);
  expect(first503, "/readyz said 503 during the fault").toBeDefined();
  expect((first503?.at ?? Infinity) - fault.start).toBeLessThan(
    fault.noticesWithinMs ?? READYZ_NOTICES_MS,
  );
  const during = world.readyz.between(first503?.at ?? fault.start, fault.end);
  expect(
    during.filter((a) => a.status !== 503).map((a) => [Math.round(a.at - fault.start), a.body]),
    "/readyz 503 until the fault ended",
  ).toEqual([]);
}
