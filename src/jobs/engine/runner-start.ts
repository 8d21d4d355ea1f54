import { chmod, mkdir } from "node:fs/promises";
import { partTimer } from "../../util/part-timer.ts";
import type { TempFiles } from "../files/temp-files.ts";
import type { MediaPort } from "../ports.ts";
import type { StageObserver } from "./apply-event.ts";
import type { FailurePolicyOptions } from "./failure-policy.ts";
import type { JobPorts, StageLimits } from "./step-context.ts";

export interface RunnerOptions extends JobPorts {
  tempDir: string;
  limits?: StageLimits;
  failurePolicy?: FailurePolicyOptions;
  leaseTtlMs?: number;
  queueCheckMs?: number;
  claimGapMs?: number;
  /** 0: every overdue step due at once. */
  restartSpreadMs?: number;
  statusThrottleMs?: number;
  concurrency?: { transfers: number; calls: number };
  /** Default: the store's clock, which a wall-clock jump does not move and replicas share. */
  now?: () => number;
  onStageChange?: StageObserver | undefined;
}

/** The options with their defaults, as the runner and its parts read them. */
export type RunnerSettings = Required<Omit<RunnerOptions, "onStageChange" | "media">> &
  Pick<RunnerOptions, "onStageChange"> & { media: MediaPort | undefined };

/**
 * Overdue steps a restart spreads out: Note Service polls (thousands
 * may wait, and a poll a cap late is within the guide's schedule) and
 * what waits for a person. The rest is few and people wait for it.
 */
export const STAGES_THAT_MAY_WAIT = ["transcribing", "naming", "writing", "reviewing"] as const;

/** The temp folder, orphan files, the due queue filled once. */
export async function prepareRunner(o: RunnerSettings, files: TempFiles): Promise<void> {
  const timer = partTimer();
  await mkdir(o.tempDir, { recursive: true, mode: 0o700 });
  await chmod(o.tempDir, 0o700);
  const { repo } = o;
  const count = await files.removeOrphans((id) => repo.get(id));
  if (count > 0) o.logger.info({ count }, "removed orphan temp files");
  timer.lap("orphans");
  await repo.queueEveryActiveJobOnce();
  timer.lap("queueOnce");
  o.logger.info({ ms: timer.laps }, "runner prepared");
}

/** Failing, it leaves every overdue job due at once. */
export async function spreadOverdue(o: RunnerSettings): Promise<number> {
  const { store, restartSpreadMs, logger } = o;
  if (restartSpreadMs <= 0) return 0;
  try {
    const spread = await store.spreadOverdue(o.now(), restartSpreadMs, STAGES_THAT_MAY_WAIT);
    if (spread > 0) logger.info({ spread, overMs: restartSpreadMs }, "overdue steps spread");
    return spread;
  } catch (error) {
    logger.warn({ err: error }, "could not spread the overdue steps; all are due now");
    return 0;
  }
}

/**
 * Behind the spread, the backlog is caught up a quarter faster than one poll of each job per
 * window, never slower than a full room a second, for two windows at most.
 */
export function catchUpPace(o: RunnerSettings, spread: number, active: number) {
  if (spread <= 0) return undefined;
  const { restartSpreadMs, concurrency } = o;
  const perSecond = (1.25 * Math.max(spread, active) * 1000) / restartSpreadMs;
  const room = concurrency.calls + concurrency.transfers;
  const at = o.now();
  return {
    perSecond: Math.max(room, perSecond),
    until: at + restartSpreadMs,
    atLatest: at + 2 * restartSpreadMs,
  };
}
