import type { Job } from "../../jobs/index.ts";
import { requestOwns } from "../installs/request-tenant.ts";
import type { ListenerDeps } from "./deps.ts";

/**
 * The job a request names (a button's value, a modal's metadata), when the request may
 * name it: one of another install or tenant is answered as not found, with the same one
 * sentence, so a value replayed from another workspace moves nothing and learns nothing.
 */
export async function requestJob(deps: ListenerDeps, jobId: string): Promise<Job | undefined> {
  const job = await deps.jobs.get(jobId);
  if (job === undefined || requestOwns(job)) return job;
  deps.logger.warn({ jobId }, "a request named a job of another installation: not found");
  return undefined;
}
