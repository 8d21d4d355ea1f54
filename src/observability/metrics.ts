import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { ACTIVE_STAGES, FINAL_STAGES, type Job, type JobRepository } from "../jobs/index.ts";

export interface QueueStats {
  scheduled: number;
  running: number;
  queued: number;
}

export interface MetricsSources {
  repo: Pick<JobRepository, "countActiveByStage">;
  queues: () => QueueStats;
  /** Socket Mode only: whether the socket to Slack is connected now. */
  socketConnected?: () => boolean;
}

/**
 * The bot's Prometheus metrics (`GET /metrics`). Counters count what this process saw; the
 * jobs-by-stage gauge reads the shared store's stage index, the same on every replica.
 */
export function createMetrics(sources: MetricsSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "meeting_notes_jobs",
    help: "Active jobs by stage (the store's stage index, at scrape time).",
    labelNames: ["stage"],
    registers: [registry],
    async collect() {
      const counts = await sources.repo.countActiveByStage();
      for (const stage of ACTIVE_STAGES) this.set({ stage }, counts[stage] ?? 0);
    },
  });
  const finished = new Counter({
    name: "meeting_notes_jobs_finished_total",
    help: "Jobs that ended in this process, by how they ended (done, failed, canceled).",
    labelNames: ["stage"],
    registers: [registry],
  });
  const stageDuration = new Histogram({
    name: "meeting_notes_stage_duration_seconds",
    help: "Time a job spent in a stage, observed when it left the stage.",
    labelNames: ["stage"],
    buckets: [1, 5, 15, 60, 300, 900, 1800, 3600, 10_800, 86_400],
    registers: [registry],
  });
  const noteService = new Counter({
    name: "meeting_notes_note_service_requests_total",
    help: "Requests to the Note Service by operation and outcome.",
    labelNames: ["operation", "outcome"],
    registers: [registry],
  });
  const slackErrors = new Counter({
    name: "meeting_notes_slack_api_errors_total",
    help: "Slack Web API calls that failed, by what was being done and Slack's error code.",
    labelNames: ["operation", "error"],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: "meeting_notes_slack_rate_limited_total",
    help: "Slack Web API calls Slack answered with 429, by method and by who waited (interactive or background).",
    labelNames: ["method", "caller"],
    registers: [registry],
  });
  new Gauge({
    name: "meeting_notes_runner_jobs",
    help: "Jobs this process has claimed (scheduled), of them stepping (running) and waiting for a slot (queued).",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const stats = sources.queues();
      this.set({ state: "scheduled" }, stats.scheduled);
      this.set({ state: "running" }, stats.running);
      this.set({ state: "queued" }, stats.queued);
    },
  });
  for (const stage of FINAL_STAGES) finished.inc({ stage }, 0);
  const reconnects = socketMetrics(registry, sources.socketConnected);

  return {
    registry,
    /** For the runner: a job left `from` after `ms` and is now `to`. */
    onStageChange(job: Job, from: string, ms: number): void {
      stageDuration.observe({ stage: from }, ms / 1000);
      if ((FINAL_STAGES as readonly string[]).includes(job.stage)) {
        finished.inc({ stage: job.stage });
      }
    },
    onNoteServiceRequest(operation: string, outcome: string): void {
      noteService.inc({ operation, outcome });
    },
    onSlackError(operation: string, error: string): void {
      slackErrors.inc({ operation, error });
    },
    /** For the Slack budget: Slack rate-limited a call of `method`. */
    onSlackRateLimited(method: string, caller: string): void {
      rateLimited.inc({ method, caller });
    },
    /** For the Socket Mode connection: it is back after it was lost. */
    onSocketReconnected(): void {
      reconnects?.inc();
    },
  };
}

/** Socket Mode's gauge and counter; none in HTTP mode, where there is no socket. */
function socketMetrics(registry: Registry, connected: (() => boolean) | undefined) {
  if (connected === undefined) return undefined;
  new Gauge({
    name: "meeting_notes_socket_mode_connected",
    help: "1 while the Socket Mode connection to Slack is open (after Slack's hello), else 0.",
    registers: [registry],
    collect() {
      this.set(connected() ? 1 : 0);
    },
  });
  return new Counter({
    name: "meeting_notes_socket_mode_reconnects_total",
    help: "Times the Socket Mode connection came back after it was lost (refresh, network).",
    registers: [registry],
  });
}

export type Metrics = ReturnType<typeof createMetrics>;
