import type { Job } from "../../jobs/index.ts";
import { requestOwns } from "../installs/request-tenant.ts";
import type { ListenerDeps } from "./deps.ts";

/** Another tenant's job is not found: a value replayed from elsewhere moves and learns nothing. */
export async function requestJob(deps: ListenerDeps, jobId: string): Promise<Job | undefined> {
  const job = await deps.jobs.get(jobId);
  if (job === undefined || requestOwns(job)) return job;
  deps.logger.warn({ jobId }, "a request named a job of another installation: not found");
  return undefined;
}
