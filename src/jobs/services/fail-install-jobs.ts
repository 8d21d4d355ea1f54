import type { Logger } from "pino";
import type { Store } from "../../store/index.ts";
import type { Admission } from "../engine/admission.ts";
import { applyEvent, type StageObserver } from "../engine/apply-event.ts";
import type { JobRunner } from "../engine/runner.ts";
import { type Failure, isActive, type Job } from "../model/job.ts";
import { installOf, isTenantOf } from "../model/tenant.ts";
import { type JobRepository, jobLeaseKey } from "../persistence/job-repository.ts";
import type { StopEvent } from "../persistence/job-requests.ts";
import { withLease } from "../persistence/with-lease.ts";
import type { WorkspaceData } from "../persistence/workspace-data.ts";

type FailEvent = Extract<StopEvent, { type: "failed" }>;

export interface FailInstallJobsDeps {
  repo: JobRepository;
  store: Store;
  admission: Admission;
  runner: Pick<JobRunner, "abort" | "kick" | "settle">;
  workspaces: WorkspaceData;
  logger: Logger;
  now: () => number;
  onStageChange?: StageObserver | undefined;
}

/**
 * Fails every active job of `install` (retryably: Retry works once it is back),
 * those waiting for a person or the Note Service too. A job no step holds ends
 * here under its lease; one a step holds is asked to stop, like a Cancel.
 */
export async function failInstallJobs(
  deps: FailInstallJobsDeps,
  install: string,
  failure: Failure["code"],
): Promise<number> {
  const stop: FailEvent = { type: "failed", failure: { code: failure }, retryable: true };
  const ids = await activeJobsOf(deps, install);
  for (const id of ids) {
    // No wait for the lease: a step that holds it reads the request at its next checkpoint.
    const done = await withLease(deps.store, jobLeaseKey(id), { ttlMs: 10_000 }, () =>
      failNow(deps, id, install, stop),
    );
    if (!done.held) {
      await deps.repo.requests.stop(id, stop);
      deps.runner.abort(id);
      // Waiting for a person, its step may be over: one runs to read the request.
      deps.runner.kick(id);
    } else if (done.value !== undefined) deps.runner.settle(done.value);
  }
  deps.logger.info({ install, jobs: ids.length, failure }, "stopped the jobs of an installation");
  return ids.length;
}

async function activeJobsOf(deps: FailInstallJobsDeps, install: string): Promise<string[]> {
  const active = new Set(await deps.repo.listActiveIds());
  const ids = new Set<string>();
  for (const tenant of await deps.workspaces.teamIds()) {
    if (!isTenantOf(install, tenant)) continue;
    for (const id of (await deps.workspaces.keysOf(tenant)).jobIds) {
      if (active.has(id)) ids.add(id);
    }
  }
  return [...ids];
}

async function failNow(
  deps: FailInstallJobsDeps,
  id: string,
  install: string,
  stop: FailEvent,
): Promise<Job | undefined> {
  const job = await deps.repo.get(id);
  if (job === undefined || !isActive(job) || installOf(job.origin) !== install) return undefined;
  const kick = (next: string) => deps.runner.kick(next);
  const ended = await applyEvent({ ...deps, onStageChange: deps.onStageChange, kick }, job, stop);
  deps.logger.warn({ jobId: id, failure: stop.failure }, "job failed");
  return ended;
}
