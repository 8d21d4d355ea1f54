import type { Logger } from "pino";
import type { Store } from "../store/index.ts";
import type { Admission } from "./admission.ts";
import { type JobRepository, jobLeaseKey } from "./job-repository.ts";
import type { JobRunner } from "./runner.ts";
import { withLease } from "./with-lease.ts";
import type { WorkspaceData } from "./workspace-data.ts";

/** Deleting a removed workspace's job waits up to 10 s for a step to stop at a checkpoint. */
const FORGET_LEASE = { ttlMs: 10_000, retry: { tries: 200, delayMs: 50 } };

export interface ForgetDeps {
  repo: JobRepository;
  store: Store;
  admission: Admission;
  runner: Pick<JobRunner, "abort" | "discard">;
  workspaces: WorkspaceData;
  logger: Logger;
}

/**
 * Deletes everything of a workspace that uninstalled the app: its running jobs stop (on
 * every replica: a step meeting the cancel request of a job whose record is gone saves
 * nothing), and its jobs, indexes, settings, templates and temp files go.
 */
export async function forgetWorkspace(
  deps: ForgetDeps,
  teamId: string,
): Promise<{ jobs: number; values: number }> {
  const keys = await deps.workspaces.keysOf(teamId);
  for (const jobId of keys.jobIds) {
    await deps.repo.requestCancel(jobId, "workspace_removed", 60 * 60_000);
    deps.runner.abort(jobId);
  }
  for (const jobId of keys.jobIds) {
    // Under the job's lease: a step under way (here or on another replica) first stops at
    // its checkpoint, so nothing it saves can bring the record back.
    const forget = () => deps.repo.forget(jobId);
    const done = await withLease(deps.store, jobLeaseKey(jobId), FORGET_LEASE, forget);
    if (!done.held) {
      deps.logger.warn({ jobId }, "a step held the job past the wait; deleting anyway");
      await forget();
    }
    await deps.admission.release(jobId).catch(() => []);
    await deps.runner.discard(jobId);
  }
  await deps.workspaces.deleteListed(teamId, keys);
  deps.logger.info(
    { teamId, jobs: keys.jobIds.length, values: keys.values.length },
    "workspace data deleted",
  );
  return { jobs: keys.jobIds.length, values: keys.values.length };
}
