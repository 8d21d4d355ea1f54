import type { Logger } from "pino";
import type { Store } from "../../store/index.ts";
import type { Admission } from "../engine/admission.ts";
import type { JobRunner } from "../engine/runner.ts";
import type { Failure } from "../model/job.ts";
import { isTenantOf, SINGLE_INSTALL, tenantOf } from "../model/tenant.ts";
import { type JobRepository, jobLeaseKey } from "../persistence/job-repository.ts";
import { withLease } from "../persistence/with-lease.ts";
import type { WorkspaceData, WorkspaceKeys } from "../persistence/workspace-data.ts";
import { type FailInstallJobsDeps, failInstallJobs } from "./fail-install-jobs.ts";

/** Deleting a job waits up to 10 s for a step to stop at a checkpoint. */
const FORGET_LEASE = { ttlMs: 10_000, retry: { tries: 200, delayMs: 50 } };
/**
 * Data noted while a pass runs (an upload at that moment) lists its team again for the next pass.
 */
const MAX_PASSES = 3;

export interface ForgetDeps {
  repo: JobRepository;
  store: Store;
  admission: Admission;
  runner: Pick<JobRunner, "abort" | "discard">;
  workspaces: WorkspaceData;
  logger: Logger;
}

export interface Forgotten {
  jobs: number;
  values: number;
}

/** "workspaces": only the tenants named (an org-wide install lost access to them). */
export type ForgetScope = "install" | "workspaces";

/**
 * Deletes everything the install left: every tenant it was noted under (its team, Slack Connect
 * hosts, an enterprise) and the ids the uninstall names, then scrubs the store's files so the text
 * cannot be read back. Another install's tenants stay, even of the same team.
 */
export async function forgetInstall(
  deps: ForgetDeps,
  namedIds: readonly string[],
  install: string = SINGLE_INSTALL,
  scope: ForgetScope = "install",
): Promise<Forgotten & { teamIds: string[] }> {
  const total: Forgotten = { jobs: 0, values: 0 };
  const seen = new Set<string>();
  const named = namedIds.map((id) => tenantOf(install, id));
  const ofScope = (tenant: string) =>
    scope === "install" ? isTenantOf(install, tenant) : named.includes(tenant);
  const listed = async () => (await deps.workspaces.teamIds()).filter(ofScope);
  let pending = [...new Set([...named, ...(await listed())])];
  for (let pass = 0; pass < MAX_PASSES && pending.length > 0; pass += 1) {
    for (const id of pending) seen.add(id);
    const forgotten = await forgetTeams(deps, pending);
    total.jobs += forgotten.jobs;
    total.values += forgotten.values;
    pending = await listed();
  }
  if (pending.length > 0) {
    deps.logger.warn({ teamIds: pending }, "data was still being noted after the uninstall");
  }
  const teamIds = [...seen];
  await scrub(deps, teamIds);
  deps.logger.info({ teamIds, ...total }, "workspace data deleted");
  return { teamIds, ...total };
}

async function scrub(deps: ForgetDeps, teamIds: readonly string[]): Promise<void> {
  try {
    await deps.store.scrub();
  } catch (error) {
    deps.logger.error({ err: error, teamIds }, "data deleted, but the store's files still hold it");
    throw error;
  }
}

async function forgetTeams(deps: ForgetDeps, teamIds: readonly string[]): Promise<Forgotten> {
  const listed: [string, WorkspaceKeys][] = [];
  for (const teamId of teamIds) listed.push([teamId, await deps.workspaces.keysOf(teamId)]);
  const jobIds = [...new Set(listed.flatMap(([, keys]) => keys.jobIds))];
  // Every job is told to stop before any is deleted: deleting waits for each job's lease.
  for (const jobId of jobIds) {
    const stop = { type: "canceled", by: "workspace_removed" } as const;
    await deps.repo.requests.stop(jobId, stop, true);
    deps.runner.abort(jobId);
  }
  for (const jobId of jobIds) {
    // Under the lease, a step under way stops first, so nothing it saves brings the record back.
    const forget = () => deps.repo.forget(jobId);
    const done = await withLease(deps.store, jobLeaseKey(jobId), FORGET_LEASE, forget);
    if (!done.held) {
      deps.logger.warn({ jobId }, "a step held the job past the wait; deleting anyway");
      await forget();
    }
    await deps.admission.release(jobId).catch(() => []);
    await deps.runner.discard(jobId);
  }
  await forgetEarlierBlobs(deps.store, jobIds);
  let values = 0;
  for (const [teamId, keys] of listed) {
    await deps.workspaces.deleteListed(teamId, keys);
    values += keys.values.length;
  }
  return { jobs: jobIds.length, values };
}

/**
 * Blobs no record names any more (a note before a Regenerate)
 * would otherwise outlive the job until their TTL.
 */
async function forgetEarlierBlobs(store: Store, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  const gone = new Set(jobIds);
  for (const key of await store.listKeys("blobs", "")) {
    if (gone.has(key.slice(0, key.indexOf(":")))) await store.delete("blobs", key);
  }
}

/** An install's jobs and data: forgotten when uninstalled, failed when it lost its tokens. */
export class Installs {
  readonly #deps: ForgetDeps & FailInstallJobsDeps;

  constructor(deps: ForgetDeps & FailInstallJobsDeps) {
    this.#deps = deps;
  }

  failJobs(install: string, failure: Failure["code"]): Promise<number> {
    return failInstallJobs(this.#deps, install, failure);
  }

  forget(
    ids: readonly string[],
    install?: string,
    scope?: ForgetScope,
  ): Promise<Forgotten & { teamIds: string[] }> {
    return forgetInstall(this.#deps, ids, install, scope);
  }
}
