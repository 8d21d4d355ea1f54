import { InFlight } from "../../util/in-flight.ts";
import { applyEvent } from "../engine/apply-event.ts";
import { type Failure, isActive, type Job } from "../model/job.ts";
import { installOf, isTenantOf, SINGLE_INSTALL, tenantOf } from "../model/tenant.ts";
import { jobLeaseKey } from "../persistence/job-repository.ts";
import type { StopEvent } from "../persistence/job-requests.ts";
import { withLease } from "../persistence/with-lease.ts";
import type { WorkspaceKeys } from "../persistence/workspace-data.ts";
import type { JobServiceOptions } from "./start-jobs.ts";

/** Deleting a job waits up to 10 s for a step to stop at a checkpoint. */
const FORGET_LEASE = { ttlMs: 10_000, retry: { tries: 200, delayMs: 50 } };
/** Data noted while a pass runs (an upload at that moment) lists its team again for the next. */
const MAX_PASSES = 3;

type InstallsDeps = Pick<
  JobServiceOptions,
  "repo" | "store" | "admission" | "runner" | "workspaces" | "logger" | "onStageChange"
> & { now: () => number };

export interface Forgotten {
  jobs: number;
  values: number;
}

/** "workspaces": only the tenants named (an org-wide install lost access to them). */
export type ForgetScope = "install" | "workspaces";

type FailEvent = Extract<StopEvent, { type: "failed" }>;

/** An install's jobs and data: forgotten when uninstalled, failed when it lost its tokens. */
export class Installs {
  readonly #d: InstallsDeps;
  /** Stops under way: a revoked token is met in a request or a step, and stops run on their own. */
  readonly #stopping = new InFlight();

  constructor(deps: InstallsDeps) {
    this.#d = deps;
  }

  /**
   * Fails every active job of `install` retryably (Retry works once it is back); resolves to how
   * many. A job a step holds is asked to stop, like a Cancel.
   */
  failJobs(install: string, failure: Failure["code"]): Promise<number> {
    return this.#stopping.run(() => this.#failJobs(install, failure));
  }

  /** Resolves once no install's jobs are being stopped (the app's `idle` and `stop` wait). */
  settled(): Promise<void> {
    return this.#stopping.idle();
  }

  async #failJobs(install: string, failure: Failure["code"]): Promise<number> {
    const { store, repo, runner } = this.#d;
    const stop: FailEvent = { type: "failed", failure: { code: failure }, retryable: true };
    const ids = await this.#activeJobsOf(install);
    for (const id of ids) {
      // No wait for the lease: a step that holds it reads the request at its next checkpoint.
      const lease = { ttlMs: 10_000 };
      const done = await withLease(store, jobLeaseKey(id), lease, () =>
        this.#fail(id, install, stop),
      );
      if (!done.held) {
        await repo.requests.stop(id, stop);
        runner.abort(id);
        // Waiting for a person, its step may be over: one runs to read the request.
        runner.kick(id);
      } else if (done.value !== undefined) runner.settle(done.value);
    }
    this.#d.logger.info(
      { install, jobs: ids.length, failure },
      "stopped the jobs of an installation",
    );
    return ids.length;
  }

  /**
   * Deletes everything the install left under every tenant it was noted under, then scrubs the
   * store's files so the text cannot be read back. Another install's tenants stay.
   */
  async forget(
    namedIds: readonly string[],
    install: string = SINGLE_INSTALL,
    scope: ForgetScope = "install",
  ): Promise<Forgotten & { teamIds: string[] }> {
    const { workspaces, logger, store } = this.#d;
    const total: Forgotten = { jobs: 0, values: 0 };
    const seen = new Set<string>();
    const named = namedIds.map((id) => tenantOf(install, id));
    const ofScope = (tenant: string) =>
      scope === "install" ? isTenantOf(install, tenant) : named.includes(tenant);
    const listed = async () => (await workspaces.teamIds()).filter(ofScope);
    let pending = [...new Set([...named, ...(await listed())])];
    for (let pass = 0; pass < MAX_PASSES && pending.length > 0; pass += 1) {
      for (const id of pending) seen.add(id);
      const forgotten = await this.#forgetTeams(pending);
      total.jobs += forgotten.jobs;
      total.values += forgotten.values;
      pending = await listed();
    }
    if (pending.length > 0) {
      logger.warn({ teamIds: pending }, "data was still being noted after the uninstall");
    }
    const teamIds = [...seen];
    await store.scrub().catch((error: unknown) => {
      logger.error({ err: error, teamIds }, "data deleted, but the store's files still hold it");
      throw error;
    });
    logger.info({ teamIds, ...total }, "workspace data deleted");
    return { teamIds, ...total };
  }

  async #activeJobsOf(install: string): Promise<string[]> {
    const active = new Set(await this.#d.repo.listActiveIds());
    const ids = new Set<string>();
    for (const tenant of await this.#d.workspaces.teamIds()) {
      if (!isTenantOf(install, tenant)) continue;
      for (const id of (await this.#d.workspaces.keysOf(tenant)).jobIds) {
        if (active.has(id)) ids.add(id);
      }
    }
    return [...ids];
  }

  async #fail(id: string, install: string, stop: FailEvent): Promise<Job | undefined> {
    const job = await this.#d.repo.get(id);
    if (job === undefined || !isActive(job) || installOf(job.origin) !== install) return undefined;
    const ended = await applyEvent(
      { ...this.#d, kick: (next) => this.#d.runner.kick(next) },
      job,
      stop,
    );
    this.#d.logger.warn({ jobId: id, failure: stop.failure }, "job failed");
    return ended;
  }

  async #forgetTeams(teamIds: readonly string[]): Promise<Forgotten> {
    const { workspaces, repo, runner, store, admission, logger } = this.#d;
    const listed: [string, WorkspaceKeys][] = [];
    for (const teamId of teamIds) listed.push([teamId, await workspaces.keysOf(teamId)]);
    const jobIds = [...new Set(listed.flatMap(([, keys]) => keys.jobIds))];
    // Every job is told to stop before any is deleted: deleting waits for each job's lease.
    for (const jobId of jobIds) {
      await repo.requests.stop(jobId, { type: "canceled", by: "workspace_removed" }, true);
      runner.abort(jobId);
    }
    for (const jobId of jobIds) {
      // Under the lease, a step under way stops first, so nothing it saves brings the record back.
      const forget = () => repo.forget(jobId);
      const done = await withLease(store, jobLeaseKey(jobId), FORGET_LEASE, forget);
      if (!done.held) {
        logger.warn({ jobId }, "a step held the job past the wait; deleting anyway");
        await forget();
      }
      await admission.release(jobId).catch(() => []);
      await runner.discard(jobId);
    }
    // Blobs no record names any more (a note before a Regenerate) would otherwise outlive the
    // job until their TTL.
    if (jobIds.length > 0) {
      const gone = new Set(jobIds);
      for (const key of await store.listKeys("blobs", "")) {
        if (gone.has(key.slice(0, key.indexOf(":")))) await store.delete("blobs", key);
      }
    }
    let values = 0;
    for (const [teamId, keys] of listed) {
      await workspaces.deleteListed(teamId, keys);
      values += keys.values.length;
    }
    return { jobs: jobIds.length, values };
  }
}
