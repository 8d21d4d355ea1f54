/**
 * A fresh process that opens a store full of active jobs and schedules them again with the
 * production runner settings. Prints `{ count, scheduled, importedMs, openedMs, startMs,
 * uptimeMs }` as one JSON line: `uptimeMs` is `process.uptime()` when `runner.start()` has
 * returned (every job has a timer), the rest say where the time went.
 * Usage: node support/bench/restart-child.ts STORE_URL TEMP_DIR BASE_URL API_KEY
 */
const importing = performance.now();
const { pino } = await import("pino");
const { createJobs } = await import("../../src/jobs/index.ts");
const { createPollSchedule, NoteTakerClient } = await import("../../src/notetaker/index.ts");
const { openStore } = await import("../../src/store/index.ts");
const { RecordingGateway } = await import("../fakes/recording-gateway.ts");
const imported = performance.now();

const [storeUrl, tempDir, baseUrl, apiKey] = process.argv.slice(2);
if (!storeUrl || !tempDir || !baseUrl || !apiKey) {
  process.stderr.write("usage: restart-child.ts STORE_URL TEMP_DIR BASE_URL API_KEY\n");
  process.exit(2);
}

const store = await openStore(storeUrl);
const opened = performance.now();
const jobs = createJobs({
  store,
  client: new NoteTakerClient({ baseUrl, apiKey }),
  gateway: new RecordingGateway({ sourcePath: "/dev/null" }),
  schedule: createPollSchedule({ initialMs: 2000, maxMs: 15_000 }),
  // Logs go to stderr: stdout carries the one JSON line.
  logger: pino({ level: "warn" }, pino.destination(2)),
  tempDir,
  retentionMs: 24 * 3600_000,
});
const count = await jobs.runner.start();
const uptimeMs = process.uptime() * 1000;
const startMs = performance.now() - opened;
const { scheduled, running, queued } = jobs.runner.stats();
process.stdout.write(
  `${JSON.stringify({
    count,
    scheduled: scheduled + running + queued,
    // performance.now() counts from the process's start: this is Node's own start-up.
    bootMs: importing,
    importMs: imported - importing,
    openMs: opened - imported,
    startMs,
    uptimeMs,
  })}\n`,
);
await jobs.runner.stop(2000);
await store.close();
