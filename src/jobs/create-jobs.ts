import type { Logger } from "pino";
import type { PollSchedule } from "../notetaker/index.ts";
import type { Store } from "../store/index.ts";
import type { FailurePolicyOptions } from "./failure-policy.ts";
import type { Gateway } from "./gateway.ts";
import { JobRepository } from "./job-repository.ts";
import { JobService } from "./job-service.ts";
import type { NoteTakerPort } from "./note-taker-port.ts";
import { JobRunner, type RunnerOptions, type StageObserver } from "./runner.ts";
import type { StageLimits } from "./steps.ts";

export interface JobsOptions {
  store: Store;
  client: NoteTakerPort;
  gateway: Gateway;
  schedule: PollSchedule;
  logger: Logger;
  tempDir: string;
  retentionMs: number;
  limits?: StageLimits;
  failurePolicy?: FailurePolicyOptions;
  onStageChange?: StageObserver;
  runner?: Partial<
    Pick<
      RunnerOptions,
      "leaseTtlMs" | "sweepIntervalMs" | "statusThrottleMs" | "concurrency" | "now"
    >
  >;
}

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
