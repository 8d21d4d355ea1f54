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
  onStageChange?: StageObserver;
}

/**
 * Overdue steps a restart spreads out: Note Service polls (thousands
 * may wait, and a poll a cap late is within the guide's schedule) and
 * what waits for a person. The rest is few and people wait for it.
 */
export const STAGES_THAT_MAY_WAIT = ["transcribing", "naming", "writing", "reviewing"] as const;
