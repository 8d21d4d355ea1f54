/**
 * The shape every fault test shares: a job already waiting to be named, the fault switched
 * on, uploads and clicks made while it lasts, the fault switched off, then the recovery
 * timed against the test's bound and the promise checked on what Slack shows.
 */
import { expect } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import {
  driveToEnd,
  everyUploadAnswered,
  readyAgain,
  skipWhereAsked,
  timeRecovery,
} from "./drive.ts";
import { SLACK_REQUEST_TIMEOUT_MS } from "./fault-scale.ts";
import type { FaultWorld } from "./fault-world.ts";
import { type Ending, expectEachOnce, type UploadOutcome } from "./ledger.ts";
import { type Click, type Upload, upload } from "./people.ts";
import { expectReadyzThrough } from "./readyz-checks.ts";

export interface FaultPlan {
  /** Names the fault in the printed figures. */
  what: string;
  durationMs: number;
  on(): Promise<void>;
  off(): Promise<void>;
  /** Whether `/readyz` must be 503 while it lasts (the store cannot write, Slack is away). */
  notReady: boolean;
  /** How soon it must say so, when not the store's and Slack's 9 s. */
  notReadyWithinMs?: number;
  /**
   * From the fault's end until every upload is answered, `/readyz` is 200 again and every
   * job has ended (names skipped as soon as asked).
   */
  recoveryBoundMs: number;
  /** The bytes of each recording uploaded while the fault lasts (default a small one). */
  recording?: (name: string) => Buffer;
  /** How the jobs may end: `done` unless the fault allows a failure sentence or a loss. */
  allowed?: readonly Ending[];
}

export interface FaultResult {
  recoveryMs: number;
  outcomes: UploadOutcome[];
  clicks: Click[];
  uploads: Upload[];
}

/** Uploads made while the fault lasts: at its start, a third and two thirds through. */
const UPLOADS_DURING = 3;

/** Runs one fault through the world (whose bot runs and is ready), checking the promise. */
export async function runFault(world: FaultWorld, plan: FaultPlan): Promise<FaultResult> {
  await eventually(
    () => world.readyz.answers.at(-1)?.status,
    (status) => status === 200,
    { what: "/readyz 200 before the fault", timeoutMs: 30_000 },
  );
  const tag = plan.what.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
  const before = upload(world, `${tag}-before.m4a`);
  await eventually(
    () => skipOffered(world, before),
    (offered) => offered,
    { what: "the job made before the fault, waiting to be named", timeoutMs: 30_000 },
  );
  const uploads: Upload[] = [before];
  const clicks: Click[] = [];
  const pressed = new Map<string, number>();
  const start = performance.now();
  await plan.on();
  for (let i = 0; i < UPLOADS_DURING; i += 1) {
    const name = `${tag}-during-${i + 1}.m4a`;
    const bytes = plan.recording?.(name);
    uploads.push(upload(world, name, bytes === undefined ? {} : { bytes }));
    clicks.push(...(await skipWhereAsked(world, uploads, pressed)));
    const next = start + ((i + 1) * plan.durationMs) / UPLOADS_DURING;
    await waitUntil(next);
  }
  await plan.off();
  const end = performance.now();
  console.info(`FAULT ${plan.what}: lasted ${Math.round(end - start)} ms`);
  const answeredMs = await timeRecovery(
    world,
    `${plan.what}, every upload answered and /readyz 200`,
    end,
    plan.recoveryBoundMs,
    () => readyAgain(world, end) && everyUploadAnswered(world, uploads),
  );
  // The bot has resumed once every job it held has ended: Skip is pressed as soon as a job
  // asks for names, so what remains is the bot's own work and waits.
  clicks.push(
    ...(await driveToEnd(
      world,
      uploads,
      Math.max(0, end + plan.recoveryBoundMs - performance.now()),
    )),
  );
  const recoveryMs = Math.round(performance.now() - end);
  console.info(
    `FAULT ${plan.what}: answered ${answeredMs} ms, every job ended ${recoveryMs} ms after the fault (bound ${plan.recoveryBoundMs} ms)`,
  );
  await Promise.all(uploads.map((u) => u.done));
  const outcomes = expectEachOnce(world, uploads, plan.allowed ?? ["done"]);
  expectReadyzThrough(world, {
    start,
    end,
    notReady: plan.notReady,
    ...(plan.notReadyWithinMs === undefined ? {} : { noticesWithinMs: plan.notReadyWithinMs }),
  });
  for (const c of clicks) {
    expect(c.status, `a click answered within ${SLACK_REQUEST_TIMEOUT_MS} ms`).toBe(200);
  }
  for (const u of uploads) {
    // Each of its two events taken in the end (answered 200), at the first try or a retry.
    expect(
      u.deliveries.filter((status) => status === 200),
      `${u.name}: its events taken`,
    ).toHaveLength(2);
  }
  return { recoveryMs, outcomes, clicks, uploads };
}

function skipOffered(world: FaultWorld, u: Upload): boolean {
  return world.fake
    .thread("C0E2E0001", u.ts)
    .some((m) => JSON.stringify(m.blocks ?? []).includes('"job_skip_naming"'));
}

/** The fault's own timeline: it lasts what the issue says, in real time. */
function waitUntil(at: number): Promise<void> {
  const ms = at - performance.now();
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
