import { jobSchema } from "../../src/jobs/index.ts";
import { withValuesInline } from "../helpers/stored-values.ts";
import type { WorkerEnv, WorkerProcess } from "./harness.ts";
import { workerJobs } from "./worker-jobs.ts";

/** The part of a worker's control API a restart is driven through. */
export type RestartedWorker = Pick<WorkerProcess, "job" | "names" | "skip" | "stop" | "output">;

/**
 * The job layer `worker.ts` runs, started in the test process on the same store, journal and
 * temp folder: a restart after a kill -9, when nothing will kill the restart itself. It reads
 * only what the dead process left (store, journal, files), as a new process would, without a
 * Node start (≈0.5 s of CPU) per scenario. No CRASH_AT or STALL_AT: they act on the process.
 */
export async function startInProcessWorker(
  env: Omit<WorkerEnv, "CRASH_AT" | "STALL_AT" | "STALL_MS">,
): Promise<RestartedWorker> {
  const { jobs, store } = await workerJobs({ ...env });
  await jobs.runner.start();
  let stopped: Promise<void> | undefined;
  return {
    // As the worker's `GET /jobs/:id` answers it: values inline, through JSON.
    async job(id) {
      const job = await jobs.service.get(id);
      if (job === undefined) return undefined;
      return jobSchema.parse(JSON.parse(JSON.stringify(await withValuesInline(store, job))));
    },
    names: (id, speakerMap) => jobs.service.submitNames(id, speakerMap),
    skip: (id) => jobs.service.skipNaming(id),
    stop() {
      stopped ??= jobs.runner.stop(2000).then(() => store.close());
      return stopped;
    },
    output: () => "",
  };
}
