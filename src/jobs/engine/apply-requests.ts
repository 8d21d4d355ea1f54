import type { Job } from "../model/job.ts";
import type { JobRequest } from "../persistence/job-requests.ts";
import { canTransition, transition } from "../stages/transitions.ts";
import { type ApplyEventDeps, applyEvent } from "./apply-event.ts";

export function jobAfter(job: Job, waiting: readonly JobRequest[], now: number): Job {
  let ahead = job;
  for (const request of waiting) {
    if (canTransition(ahead, request)) ahead = transition(ahead, request, now);
  }
  return ahead;
}

/**
 * Applies the job's waiting requests in order, under the lease the
 * caller holds; one the job can no longer take is dropped and logged.
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
