import { JobRepository } from "./job-repository.ts";
import { JobService } from "./job-service.ts";
import { JobRunner, type RunnerOptions } from "./runner.ts";

/** What the job layer needs: the runner's ports and policies, plus how long jobs are kept. */
export type JobsOptions = Pick<
  RunnerOptions,
  | "store"
  | "client"
  | "gateway"
  | "schedule"
  | "logger"
  | "tempDir"
  | "limits"
  | "failurePolicy"
  | "onStageChange"
> & {
  retentionMs: number;
  runner?: Partial<
    Pick<
      RunnerOptions,
      "leaseTtlMs" | "sweepIntervalMs" | "statusThrottleMs" | "concurrency" | "now"
    >
  >;
};

/** Wires the job layer: one repository, one runner, one service over the same store. */
export function createJobs(options: JobsOptions) {
  const logger = options.logger.child({ name: "jobs" });
  const repo = new JobRepository(options.store, { retentionMs: options.retentionMs, logger });
  const runner = new JobRunner({
    repo,
    store: options.store,
    client: options.client,
    gateway: options.gateway,
    schedule: options.schedule,
    logger,
    tempDir: options.tempDir,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.failurePolicy === undefined ? {} : { failurePolicy: options.failurePolicy }),
    ...options.runner,
    ...(options.onStageChange === undefined ? {} : { onStageChange: options.onStageChange }),
  });
  const service = new JobService({
    repo,
    store: options.store,
    runner,
    logger,
    retentionMs: options.retentionMs,
    ...(options.runner?.now === undefined ? {} : { now: options.runner.now }),
    ...(options.onStageChange === undefined ? {} : { onStageChange: options.onStageChange }),
  });
  return { repo, runner, service };
}

export type Jobs = ReturnType<typeof createJobs>;
