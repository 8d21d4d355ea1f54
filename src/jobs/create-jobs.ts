import { optional } from "../util/optional.ts";
import {
  Admission,
  type AdmissionLimits,
  defaultAdmissionLimits,
  holdsSlot,
} from "./engine/admission.ts";
import { JobRunner, type RunnerOptions, type StageObserver } from "./engine/runner.ts";
import { defaultStageLimits } from "./engine/step-context.ts";
import { JobRepository } from "./persistence/job-repository.ts";
import { RecentJobs } from "./persistence/recent-jobs.ts";
import { WorkspaceData } from "./persistence/workspace-data.ts";
import type { StoreResetPort } from "./ports.ts";
import { type StoreResetTimings, StoreResetWatch } from "./recovery/store-reset.ts";
import { createServices } from "./services/create-services.ts";

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
  | "media"
> & {
  retentionMs: number;
  admission?: AdmissionLimits;
  regenerateCooldownMs?: number;
  storeReset?: { port?: StoreResetPort; timings?: Partial<StoreResetTimings> };
  runner?: Partial<
    Pick<
      RunnerOptions,
      | "leaseTtlMs"
      | "queueCheckMs"
      | "claimGapMs"
      | "restartSpreadMs"
      | "statusThrottleMs"
      | "concurrency"
      | "now"
    >
  >;
};

/**
 * Wires the job layer over one store: the repository, the runner, the reset watch and the services.
 */
export function createJobs(options: JobsOptions) {
  const logger = options.logger.child({ name: "jobs" });
  // One clock for every time the job layer keeps: the store's (see `Store.now`).
  const { store } = options;
  const now = options.runner?.now ?? (() => store.now());
  // All that is left if the store loses its data.
  const recent = new RecentJobs({ now });
  const repo = new JobRepository(options.store, {
    retentionMs: options.retentionMs,
    logger,
    onSeen: (job) => recent.note(job),
  });
  const onStageChange: StageObserver = (job, from, ms) => options.onStageChange?.(job, from, ms);
  const admission = new Admission({
    store: options.store,
    limits: options.admission ?? defaultAdmissionLimits,
    logger,
    stillHolds: async (id) => {
      const job = await repo.get(id);
      return job !== undefined && holdsSlot(job);
    },
    now,
  });
  const runner = new JobRunner({
    repo,
    store: options.store,
    admission,
    client: options.client,
    gateway: options.gateway,
    schedule: options.schedule,
    logger,
    tempDir: options.tempDir,
    media: options.media,
    // A note waiting for its review expires with the job's retention.
    limits: { ...defaultStageLimits, reviewMs: options.retentionMs, ...options.limits },
    ...optional("failurePolicy", options.failurePolicy),
    // A poll up to a cap late is what the schedule allows anyway.
    ...optional("restartSpreadMs", options.schedule.capMs),
    ...options.runner,
    onStageChange,
  });
  const reset = new StoreResetWatch({
    store: options.store,
    repo,
    recent,
    runner,
    workspaces: new WorkspaceData(options.store, logger),
    port: options.storeReset?.port,
    logger,
    now,
    ...optional("timings", options.storeReset?.timings),
  });
  const services = createServices({
    repo,
    store: options.store,
    admission,
    runner,
    logger,
    retentionMs: options.retentionMs,
    canPrepare: options.media !== undefined,
    alreadyStarted: (origin, source) => reset.alreadyStarted(origin, source),
    ...optional("regenerateCooldownMs", options.regenerateCooldownMs),
    now,
    onStageChange,
  });
  return { repo, runner, reset, ...services };
}

export type Jobs = ReturnType<typeof createJobs>;
