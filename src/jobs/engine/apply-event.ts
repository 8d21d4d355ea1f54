import type { Logger } from "pino";
import type { JobEvent, JobRequest } from "../model/events.ts";
import type { Job } from "../model/job.ts";
import { canTransition, transition } from "../model/transitions.ts";
import type { JobRepository } from "../persistence/job-repository.ts";
import { type Admission, holdsSlot } from "./admission.ts";

export type StageObserver = (job: Job, from: Job["stage"], ms: number) => void;

export interface ApplyEventDeps {
  repo: JobRepository;
  admission: Admission;
  now: () => number;
  logger: Logger;
  onStageChange?: StageObserver | undefined;
  kick: (jobId: string) => void;
}

/**
 * The one write path of a job, for steps and people's commands alike:
 * transition, save, give back a slot the job no longer holds, log, observe.
 */
export async function applyEvent(deps: ApplyEventDeps, job: Job, event: JobEvent): Promise<Job> {
  const now = deps.now();
  const next = transition(job, event, now);
  await deps.repo.save(next, job);
  if (holdsSlot(job) && !holdsSlot(next)) await releaseSlot(deps, job.id);
  if (next.stage !== job.stage) {
    const ms = now - job.stageStartedAt;
    deps.logger.info(
      { jobId: job.id, event: event.type, from: job.stage, to: next.stage, ms },
      "job stage changed",
    );
    deps.onStageChange?.(next, job.stage, ms);
  }
  return next;
}

/** A failure is only logged: the admission check drops slots whose jobs no longer hold them. */
async function releaseSlot(deps: ApplyEventDeps, jobId: string): Promise<void> {
  try {
    for (const id of await deps.admission.release(jobId)) deps.kick(id);
  } catch (error) {
    deps.logger.warn({ err: error, jobId }, "could not give back a fair-use slot");
  }
}

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
