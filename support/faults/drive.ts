/**
 * A person's part after the uploads: Skip naming on each job that asks (again, when a click
 * was answered but not applied, as someone presses again after "try again in a minute"),
 * until every upload has ended; and the recovery clock of the suite.
 */
import { ACTIONS } from "../../src/slack/ids.ts";
import { buttonValue, CHANNEL, statusMessage } from "../e2e/stack.ts";
import { eventually } from "../helpers/eventually.ts";
import type { FaultWorld } from "./fault-world.ts";
import { allSettled } from "./ledger.ts";
import { type Click, click, type Upload } from "./people.ts";

/** Between two presses of the same button on the same job. */
const PRESS_AGAIN_MS = 2_000;

/**
 * Presses Skip on every job of `uploads` whose status message offers it, at most once every
 * 2 s per job; returns the clicks made. One round: call it in a loop.
 */
export async function skipWhereAsked(
  world: FaultWorld,
  uploads: readonly Upload[],
  pressed: Map<string, number>,
): Promise<Click[]> {
  const clicks: Click[] = [];
  for (const u of uploads) {
    const status = statusMessage(world.fake.thread(CHANNEL, u.ts));
    const jobId = buttonValue(status, ACTIONS.skipNaming);
    if (jobId === undefined || status === undefined) continue;
    const last = pressed.get(jobId);
    if (last !== undefined && performance.now() - last < PRESS_AGAIN_MS) continue;
    if (world.botUrl() === undefined) continue;
    pressed.set(jobId, performance.now());
    clicks.push(
      await click(world, ACTIONS.skipNaming, { jobId, statusTs: status.ts, threadTs: u.ts }),
    );
  }
  return clicks;
}

/** Waits until `u`'s job asks for names, and presses Skip once. */
export async function skipOnce(world: FaultWorld, u: Upload): Promise<Click> {
  const pressed = new Map<string, number>();
  const clicks = await eventually(
    () => skipWhereAsked(world, [u], pressed),
    (made) => made.length > 0,
    { what: `${u.name}'s Skip`, timeoutMs: 30_000, intervalMs: 20 },
  );
  return clicks[0] as Click;
}

/** Skips naming wherever asked until every upload has ended; returns every click. */
export async function driveToEnd(
  world: FaultWorld,
  uploads: readonly Upload[],
  timeoutMs: number,
): Promise<Click[]> {
  const pressed = new Map<string, number>();
  const clicks: Click[] = [];
  await eventually(
    async () => {
      clicks.push(...(await skipWhereAsked(world, uploads, pressed)));
      return allSettled(world, uploads);
    },
    (settled) => settled,
    {
      timeoutMs,
      intervalMs: 100,
      what: "every upload's job to end",
      context: () => world.lines().slice(-30).join("\n"),
    },
  );
  return clicks;
}

/**
 * Waits until `recovered()` holds, from `faultEnd` (`performance.now()`), and returns how
 * long it took; fails past `boundMs` (the test's stated bound), naming it.
 */
export async function timeRecovery(
  world: FaultWorld,
  what: string,
  faultEnd: number,
  boundMs: number,
  recovered: () => boolean,
): Promise<number> {
  await eventually(recovered, (ok) => ok, {
    timeoutMs: Math.max(0, faultEnd + boundMs - performance.now()),
    intervalMs: 50,
    what: `${what}: recovery within ${boundMs} ms of the fault's end`,
    context: () => world.lines().slice(-30).join("\n"),
  });
  const ms = Math.round(performance.now() - faultEnd);
  console.info(`FAULT ${what}: recovered ${ms} ms after the fault ended (bound ${boundMs} ms)`);
  return ms;
}

/** Whether the bot's `/readyz` said 200 at or after `from`. */
export const readyAgain = (world: FaultWorld, from: number) =>
  world.readyz.firstAfter(from, 200) !== undefined;

/** Whether every upload has its status message (or a sentence refusing it). */
export function everyUploadAnswered(world: FaultWorld, uploads: readonly Upload[]): boolean {
  return uploads.every((u) =>
    world.fake.thread(CHANNEL, u.ts).some((m) => m.ts !== u.ts && m.bot_id !== undefined),
  );
}
