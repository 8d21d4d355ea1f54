import type { AppDeps } from "./app-types.ts";
import type { Config } from "./config.ts";
import { createHttpSurface, type HttpSurface, type Route } from "./http/http-surface.ts";
import { DiskFullWatch, type Jobs } from "./jobs/index.ts";
import type { Logger } from "./logger.ts";
import type { NoteServiceWatch } from "./notetaker/index.ts";
import { createAppReadiness } from "./observability/app-readiness.ts";
import { createMetrics } from "./observability/metrics.ts";
import { opsRoutes } from "./observability/ops-routes.ts";
import { createTokenWatch } from "./slack/connection/slack-troubles.ts";
import type { Store } from "./store/index.ts";
import { optional } from "./util/optional.ts";

/** The ops side: metrics, readiness and their routes, the watches readiness reads. */
export type Ops = ReturnType<typeof wireOps>;

/**
 * Built before Bolt's client and the job layer exist: it reaches those through `late`,
 * references bound once they are built.
 */
export function wireOps(o: {
  config: Config;
  deps: AppDeps;
  logger: Logger;
  store: Store;
  tempDir: string;
  noteService: NoteServiceWatch;
  late: { jobs: () => Jobs | undefined; socket: () => { connected: boolean } | undefined };
  alive: () => boolean;
}) {
  const { config, deps, logger, late } = o;
  // Socket Mode: readiness and metrics read the connection, bound once Bolt is built.
  const socketMode =
    config.slack.appToken === undefined
      ? {}
      : { socketConnected: () => late.socket()?.connected ?? false };
  const metrics = createMetrics({
    repo: {
      countActiveByStage: () => late.jobs()?.repo.countActiveByStage() ?? Promise.resolve({}),
    },
    queues: () => late.jobs()?.runner.stats() ?? { scheduled: 0, running: 0, queued: 0 },
    ...socketMode,
  });
  // Downloads record a write that found the disk full; readiness reads it.
  const diskFull = new DiskFullWatch();
  // A bot token Slack stops taking while the bot runs: one error line, readiness told now.
  const tokens = createTokenWatch(logger.child({ name: "slack" }), () => {
    void readiness.checkSlackNow();
  });
  const readiness = createAppReadiness({
    config,
    store: o.store,
    tempDir: o.tempDir,
    diskFullSince: () => diskFull.fullSince,
    logger,
    storeResetAt: () => late.jobs()?.reset.recentResetAt(),
    noteServiceDownSince: o.noteService.unreachableSince,
    tuning: deps.readiness,
    tokens,
    ...socketMode,
  });
  const routes = opsRoutes({
    alive: o.alive,
    ready: async () => readiness.report(),
    scrape: () => metrics.scrape(),
    onError: (error) => logger.error({ err: error }, "ops route failed"),
  });
  return { metrics, diskFull, tokens, readiness, routes };
}

/**
 * The HTTP servers: the health routes, Slack's and the installs' on the app's port;
 * `/metrics` there too, or alone on its own when METRICS_PORT is set.
 */
export function serveHttp(o: {
  config: Config;
  deps: AppDeps;
  logger: Logger;
  ops: Ops;
  routes: Route[];
}): { http: HttpSurface; metricsHttp: HttpSurface | undefined } {
  const serve = (routes: Route[]): HttpSurface =>
    createHttpSurface({
      routes,
      logger: o.logger.child({ name: "http" }),
      ...optional("timeouts", o.deps.httpTimeouts),
    });
  const { health, metrics } = o.ops.routes;
  const separateMetrics = o.config.metricsPort !== undefined;
  const http = serve([...health, ...(separateMetrics ? [] : [metrics]), ...o.routes]);
  const metricsHttp = separateMetrics ? serve([metrics]) : undefined;
  return { http, metricsHttp };
}
