import type { Job } from "../model/job.ts";
import type { JobRequest } from "../persistence/job-requests.ts";
import { canTransition, transition } from "../stages/transitions.ts";
import { type ApplyEventDeps, applyEvent } from "./apply-event.ts";

/** The job as it stands once `waiting` is applied, each request it can take in turn. */
export function jobAfter(job: Job, waiting: readonly JobRequest[], now: number): Job {
  let ahead = job;
  for (const request of waiting) {
    if (canTransition(ahead, request)) ahead = transition(ahead, request, now);
  }
  return ahead;
}

/**
 * Applies the requests waiting for the job, oldest first, under the job's lease, which the
 * caller holds: each through the one write path, when the job can take it; one it can no
 * longer take (the job ended another way first, or an earlier request moved it on) is
 * dropped and logged. Resolves with the job as it then stands (undefined: its record is
 * gone) and how many were applied.
 */
export async function applyRequests(
  deps: ApplyEventDeps,
  jobId: string,
  known?: Job,
): Promise<{ job: Job | undefined; applied: number }> {
  const waiting = await deps.repo.requests.list(jobId);
  if (waiting.length === 0) return { job: known, applied: 0 };
  let job = known ?? (await deps.repo.get(jobId));
  let applied = 0;
  for (const request of waiting) {
    if (job === undefined) break;
    if (!canTransition(job, request)) {
      deps.logger.info({ jobId, event: request.type, stage: job.stage }, "job request dropped");
      continue;
    }
    job = await applyEvent(deps, job, request);
    applied += 1;
    if (request.type === "failed") {
      deps.logger.warn({ jobId, failure: request.failure }, "job failed");
    }
  }
  await deps.repo.requests.remove(jobId, waiting.length);
  return { job, applied };
}
