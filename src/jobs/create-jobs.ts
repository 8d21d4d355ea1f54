import { optional } from "../util/optional.ts";
import {
  Admission,
  type AdmissionLimits,
  defaultAdmissionLimits,
  holdsSlot,
} from "./engine/admission.ts";
import { JobRunner } from "./engine/runner.ts";
import type { RunnerOptions } from "./engine/runner-start.ts";
import { defaultStageLimits } from "./engine/step-context.ts";
import { ChannelSettingsStore } from "./persistence/channel-settings.ts";
import { ChannelUploads } from "./persistence/channel-uploads.ts";
import { JobRepository } from "./persistence/job-repository.ts";
import { ModalMemory } from "./persistence/modal-memory.ts";
import { RecentJobs } from "./persistence/recent-jobs.ts";
import { Templates } from "./persistence/templates.ts";
import { WorkspaceData } from "./persistence/workspace-data.ts";
import type { StoreResetPort } from "./ports.ts";
import { type StoreResetTimings, StoreResetWatch } from "./recovery/store-reset.ts";
import { markStoreFailures } from "./recovery/store-unavailable.ts";
import { Installs } from "./services/installs.ts";
import { JobService } from "./services/job-service.ts";
import type { JobServiceOptions } from "./services/start-jobs.ts";

/** The runner's pace and clock, which tests and benchmarks change. */
type RunnerTuning =
  | "leaseTtlMs"
  | "queueCheckMs"
  | "claimGapMs"
  | "restartSpreadMs"
  | "statusThrottleMs"
  | "concurrency"
  | "now";

export type JobsOptions = Omit<RunnerOptions, "repo" | "admission" | RunnerTuning> & {
  retentionMs: number;
  admission?: AdmissionLimits;
  regenerateCooldownMs?: number;
  storeReset?: { port?: StoreResetPort; timings?: Partial<StoreResetTimings> };
  runner?: Partial<Pick<RunnerOptions, RunnerTuning>>;
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
  const repo = new JobRepository(store, {
    retentionMs: options.retentionMs,
    logger,
    onSeen: (job) => recent.note(job),
  });
  const admission = new Admission({
    store,
    limits: options.admission ?? defaultAdmissionLimits,
    logger,
    stillHolds: async (id) => {
      const job = await repo.get(id);
      return job !== undefined && holdsSlot(job);
    },
    now,
  });
  const runner = new JobRunner({
    ...options,
    repo,
    admission,
    logger,
    // A note waiting for its review expires with the job's retention.
    limits: { ...defaultStageLimits, reviewMs: options.retentionMs, ...options.limits },
    // A poll up to a cap late is what the schedule allows anyway.
    ...optional("restartSpreadMs", options.schedule.capMs),
    ...options.runner,
  });
  const reset = new StoreResetWatch({
    store,
    repo,
    recent,
    runner,
    workspaces: new WorkspaceData(store, logger),
    port: options.storeReset?.port,
    logger,
    now,
    ...optional("timings", options.storeReset?.timings),
  });
  const services = createServices({
    repo,
    store,
    admission,
    runner,
    logger,
    retentionMs: options.retentionMs,
    canPrepare: options.media !== undefined,
    alreadyStarted: (origin, source) => reset.alreadyStarted(origin, source),
    ...optional("regenerateCooldownMs", options.regenerateCooldownMs),
    now,
    onStageChange: options.onStageChange,
  });
  return { repo, runner, reset, ...services };
}

export type Jobs = ReturnType<typeof createJobs>;

/**
 * The use cases the Slack layer calls, over one store
 * whose failures reach them as `StoreUnavailableError`.
 */
export function createServices(options: Omit<JobServiceOptions, "settings" | "workspaces">) {
  const store = markStoreFailures(options.store);
  const { logger, retentionMs } = options;
  const workspaces = new WorkspaceData(store, logger);
  const now = options.now ?? Date.now;
  const templates = new Templates({ store, retentionMs, now, workspaces });
  const settings = new ChannelSettingsStore({ store, workspaces, templates });
  const repo = options.repo.over(store);
  const service = new JobService({ ...options, store, repo, settings, workspaces });
  const installs = new Installs({ ...options, repo, store, workspaces, now });
  const modals = new ModalMemory(store, workspaces);
  const uploads = new ChannelUploads({ store, workspaces, retentionMs });
  return { service, settings, uploads, templates, modals, installs };
}

export type Services = ReturnType<typeof createServices>;
