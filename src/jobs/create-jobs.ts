import { Admission, type AdmissionLimits, defaultAdmissionLimits, holdsSlot } from "./admission.ts";
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
  | "media"
> & {
  retentionMs: number;
  /** Fair use: recordings downloaded and transcribed at once, per person, channel, bot. */
  admission?: AdmissionLimits;
  /** The shortest time between two Regenerates of one job's notes. */
  regenerateCooldownMs?: number;
  runner?: Partial<
    Pick<
      RunnerOptions,
      "leaseTtlMs" | "queueCheckMs" | "claimGapMs" | "statusThrottleMs" | "concurrency" | "now"
    >
  >;
};

/** Wires the job layer: one repository, one runner, one service over the same store. */
export function createJobs(options: JobsOptions) {
  const logger = options.logger.child({ name: "jobs" });
  // One clock for every time the job layer keeps: the store's (see `Store.now`).
  const { store } = options;
  const now = options.runner?.now ?? (() => store.now());
  const repo = new JobRepository(options.store, { retentionMs: options.retentionMs, logger });
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
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.failurePolicy === undefined ? {} : { failurePolicy: options.failurePolicy }),
    ...options.runner,
    ...(options.onStageChange === undefined ? {} : { onStageChange: options.onStageChange }),
  });
  const service = new JobService({
    repo,
    store: options.store,
    admission,
    runner,
    logger,
    retentionMs: options.retentionMs,
    canPrepare: options.media !== undefined,
    ...(options.regenerateCooldownMs === undefined
      ? {}
      : { regenerateCooldownMs: options.regenerateCooldownMs }),
    now,
    ...(options.onStageChange === undefined ? {} : { onStageChange: options.onStageChange }),
  });
  return { repo, runner, service };
}

export type Jobs = ReturnType<typeof createJobs>;
