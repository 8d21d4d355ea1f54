import type { StageObserver } from "./apply-event.ts";
import type { FailurePolicyOptions } from "./failure-policy.ts";
import type { JobPorts, StageLimits } from "./step.ts";

export interface RunnerOptions extends JobPorts {
  /** Where recordings and DOCX files wait between steps; survives a restart. */
  tempDir: string;
  limits?: StageLimits;
  failurePolicy?: FailurePolicyOptions;
  /** How long one replica may drive a job without renewing its lease. */
  leaseTtlMs?: number;
  /**
   * The longest this process goes without looking at the due queue: jobs other replicas
   * schedule, and those a dead replica leaves behind, are seen within this time.
   */
  queueCheckMs?: number;
  /** The shortest time between two claims from the due queue (see `DuePump`). */
  claimGapMs?: number;
  /**
   * Over how long a restart spreads the steps it finds overdue in the stages that may wait
   * (see {@link STAGES_THAT_MAY_WAIT}); 0: none, all due at once. Default: the poll cap.
   */
  restartSpreadMs?: number;
  /** The shortest gap between two progress edits of one status message. */
  statusThrottleMs?: number;
  /** Steps run at once: heavy transfers, and everything else. */
  concurrency?: { transfers: number; calls: number };
  /**
   * The job clock: due times, stage starts, throttles. Default: the store's (`Store.now`),
   * which a wall-clock jump does not move and which replicas on Redis share.
   */
  now?: () => number;
  /** Told of every stage change a step makes (metrics). */
  onStageChange?: StageObserver;
}

/**
 * The stages whose overdue steps a restart spreads out instead of running at once: a poll
 * of a Note Service task (thousands of jobs may be waiting on one, and a poll up to the
 * 15 s cap late is what the guide's own schedule allows) and what waits for a person (a
 * review's reminder, its expiry). The others go first: a job just asked for (`queued`), a
 * transfer under way (`downloading`, `preparing`: a download link, a half-written file)
 * and a note being delivered — people wait for them, they are few, and their Slack calls
 * are paced by the budget and the runner's two transfer slots.
 */
export const STAGES_THAT_MAY_WAIT = ["transcribing", "naming", "writing", "reviewing"] as const;
