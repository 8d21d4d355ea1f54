/**
 * Benchmark 3 in a process of its own. Prints the `ManyJobsResult` as one JSON line.
 * Usage: node support/bench/many-jobs-child.ts JOBS WINDOW_MS
 */
import { runManyJobs } from "./many-jobs.ts";

const [jobs, windowMs] = process.argv.slice(2).map(Number);
if (!jobs || !windowMs) {
  process.stderr.write("usage: many-jobs-child.ts JOBS WINDOW_MS\n");
  process.exit(2);
}
const result = await runManyJobs(jobs, windowMs);
process.stdout.write(`${JSON.stringify(result)}\n`);
