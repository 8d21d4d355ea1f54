import { join } from "node:path";
import { pino } from "pino";
import {
  createJobs,
  type Job,
  type JobsOptions,
  type NoteTakerPort,
  type Origin,
  type SlackPort,
  type SourceFile,
} from "../../src/jobs/index.ts";
import { createPollSchedule } from "../../src/notetaker/index.ts";
import type { Store } from "../../src/store/index.ts";
import { eventually } from "./eventually.ts";

/** A job layer with test speeds: polls every few ms, no retention worries. */
export function testJobs(options: {
  store: Store;
  client: NoteTakerPort;
  gateway: SlackPort;
  tempDir: string;
  overrides?: Partial<JobsOptions>;
}) {
  return createJobs({
    store: options.store,
    client: options.client,
    gateway: options.gateway,
    schedule: createPollSchedule({ initialMs: 5, maxMs: 20, jitter: 0 }),
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    tempDir: join(options.tempDir, "jobs"),
    retentionMs: 24 * 60 * 60_000,
    failurePolicy: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
    runner: { leaseTtlMs: 2_000, queueCheckMs: 200, claimGapMs: 5, statusThrottleMs: 0 },
    ...options.overrides,
  });
}

export const origin = (overrides: Partial<Origin> = {}): Origin => ({
  teamId: "T1",
  channelId: "C1",
  threadTs: "1700000000.000100",
  userId: "U1",
  ...overrides,
});

export const source = (overrides: Partial<SourceFile> = {}): SourceFile => ({
  fileId: `F${Math.random().toString(36).slice(2, 10)}`,
  filename: "weekly-sync.m4a",
  size: 4096,
  downloadUrl: "https://files.slack.test/files-pri/T1-F1/download/weekly-sync.m4a",
  ...overrides,
});

/** Waits until the job is in one of `stages`. */
export function waitForStage(
  get: (id: string) => Promise<Job | undefined>,
  id: string,
  ...stages: Job["stage"][]
): Promise<Job | undefined> {
  return eventually(
    () => get(id),
    (job) => job !== undefined && stages.includes(job.stage),
  );
}
