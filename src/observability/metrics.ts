import type { Registry } from "prom-client";
import { ACTIVE_STAGES, FINAL_STAGES, type Job, type JobRepository } from "../jobs/index.ts";

type PromClient = typeof import("prom-client");

/** What the runner's queues hold now. */
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
 * jobs-by-stage gauge reads the shared store's stage index, so every replica reports the same.
 */
export function createMetrics(sources: MetricsSources) {
  // prom-client and its default collectors load at the first scrape or the first thing
  // counted, not at start-up; what is counted meanwhile waits for them.
  let loaded: Promise<Built> | undefined;
  let built: Built | undefined;
  const waiting: ((b: Built) => void)[] = [];
  const load = () => {
    loaded ??= import("prom-client").then((prom) => {
      built = buildMetrics(prom, sources);
      for (const count of waiting.splice(0)) count(built);
      return built;
    });
    return loaded;
  };
  const count = (add: (b: Built) => void) => {
    if (built !== undefined) return add(built);
    waiting.push(add);
    load().catch(() => undefined);
  };
  return {
    /** `GET /metrics`: the Prometheus text and its content type. */
    async scrape(): Promise<{ text: string; contentType: string }> {
      const { registry } = await load();
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
    /** For the runner: a job left `from` after `ms` and is now `to`. */
    onStageChange(job: Job, from: string, ms: number): void {
      count((b) => {
        b.stageDuration.observe({ stage: from }, ms / 1000);
        if ((FINAL_STAGES as readonly string[]).includes(job.stage)) {
          b.finished.inc({ stage: job.stage });
        }
      });
    },
    /** For the Note Service client. */
    onNoteServiceRequest(operation: string, outcome: string): void {
      count((b) => b.noteService.inc({ operation, outcome }));
    },
    /** For the Slack gateway and listeners. */
    onSlackError(operation: string, error: string): void {
      count((b) => b.slackErrors.inc({ operation, error }));
    },
    /** For the Slack budget: Slack rate-limited a call of `method`. */
    onSlackRateLimited(method: string, caller: string): void {
      count((b) => b.rateLimited.inc({ method, caller }));
    },
    /** For the Socket Mode connection: it is back after it was lost. */
    onSocketReconnected(): void {
      count((b) => b.reconnects?.inc());
    },
  };
}

type Built = ReturnType<typeof buildMetrics>;

/** The registry and the metrics the app counts into. */
function buildMetrics(prom: PromClient, sources: MetricsSources) {
  const { Counter, Gauge, Histogram, Registry } = prom;
  const registry = new Registry();
  const counter = (name: string, help: string, labelNames: string[]) =>
    new Counter({ name, help, labelNames, registers: [registry] });
  // Process and Node.js figures (CPU, memory, event loop lag, handles, GC), on our registry.
  prom.collectDefaultMetrics({ register: registry });
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
  const finished = counter(
    "meeting_notes_jobs_finished_total",
    "Jobs that ended in this process, by how they ended (done, failed, canceled).",
    ["stage"],
  );
  const stageDuration = new Histogram({
    name: "meeting_notes_stage_duration_seconds",
    help: "Time a job spent in a stage, observed when it left the stage.",
    labelNames: ["stage"],
    buckets: [1, 5, 15, 60, 300, 900, 1800, 3600, 10_800, 86_400],
    registers: [registry],
  });
  const noteService = counter(
    "meeting_notes_note_service_requests_total",
    "Requests to the Note Service by operation and outcome.",
    ["operation", "outcome"],
  );
  const slackErrors = counter(
    "meeting_notes_slack_api_errors_total",
    "Slack Web API calls that failed, by what was being done and Slack's error code.",
    ["operation", "error"],
  );
  const rateLimited = counter(
    "meeting_notes_slack_rate_limited_total",
    "Slack Web API calls Slack answered with 429, by method and by who waited (interactive or background).",
    ["method", "caller"],
  );
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
  const reconnects = socketMetrics(prom, registry, sources.socketConnected);
  return { registry, finished, stageDuration, noteService, slackErrors, rateLimited, reconnects };
}

/** Socket Mode's gauge and counter; none in HTTP mode, where there is no socket. */
function socketMetrics(
  { Counter, Gauge }: PromClient,
  registry: Registry,
  connected: (() => boolean) | undefined,
) {
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
