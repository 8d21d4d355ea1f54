/**
 * `npm run bench`: runs the benchmarks (not part of `npm test`) and writes the figures with
 * the machine's facts to test/bench/RESULTS.md. `BENCH=many-jobs` runs one of them.
 */
import { writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { benchManyJobs, type ManyJobsResult } from "./many-jobs.ts";

const only = process.env.BENCH;
const sections: string[] = [];

if (only === undefined || only === "many-jobs") {
  const results: ManyJobsResult[] = [];
  for (const n of (process.env.BENCH_JOBS ?? "1000").split(",").map(Number)) {
    process.stderr.write(`many-jobs: ${n} jobs…\n`);
    results.push(await benchManyJobs(n));
  }
  sections.push(
    [
      "## Many jobs in `transcribing`",
      "",
      "Jobs go through download → upload → `transcribing` against the emulator in its own",
      "process (tasks never finish), then a window measures this process. Poll schedule 2 s →",
      "15 s, SQLite store. Targets at 1,000: RSS ≤ 300 MB, loop p99 ≤ 20 ms.",
      "",
      "| jobs | to transcribing (s) | window (s) | peak RSS (MiB) | RSS growth (MiB) | loop p99 (ms) | loop max (ms) | polls/s |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...results.map(
        (r) =>
          `| ${r.jobs} | ${r.secondsToTranscribing} | ${r.windowSeconds} | ${r.rssMiB} | ${r.rssGrowthMiB} | ${r.loopDelayP99Ms} | ${r.loopDelayMaxMs} | ${r.pollsPerSecond} |`,
      ),
    ].join("\n"),
  );
}

const cpu = cpus()[0]?.model ?? "unknown CPU";
const header = [
  "# Benchmark results",
  "",
  `Measured ${new Date().toISOString().slice(0, 10)} with Node ${process.version} on ${cpus().length} × ${cpu},`,
  `${Math.round(totalmem() / 1024 ** 3)} GiB RAM. Run \`npm run bench\` to measure again.`,
  "",
].join("\n");
const out = fileURLToPath(new URL("./RESULTS.md", import.meta.url));
await writeFile(out, `${header}\n${sections.join("\n\n")}\n`);
process.stdout.write(`${header}\n${sections.join("\n\n")}\n`);
