import type { Ops } from "./app-ops.ts";
import type { SlackSide } from "./app-slack.ts";
import type { Config } from "./config.ts";
import { type DeploymentPaths, releaseDeploymentPaths } from "./deployment-paths.ts";
import type { HttpSurface } from "./http/http-surface.ts";
import type { Jobs } from "./jobs/index.ts";
import type { Logger } from "./logger.ts";
import type { slackStartUp } from "./slack/connection/connect-slack.ts";
import type { createPendingStarts } from "./slack/listeners/replay-pending.ts";
import type { Store } from "./store/index.ts";
import type { partTimer } from "./util/part-timer.ts";
import { withTimeout } from "./util/with-timeout.ts";

/** How long a stop waits for listeners still handling requests. */
const LISTENERS_STOP_MS = 10_000;

export type MeetingNotesApp = ReturnType<typeof appLifecycle>;

/** The built app's start, idle and stop: the order its parts start and stop in. */
export function appLifecycle(o: {
  config: Config;
  logger: Logger;
  store: Store;
  jobs: Jobs;
  ops: Ops;
  bolt: SlackSide["bolt"];
  http: HttpSurface;
  metricsHttp: HttpSurface | undefined;
  pending: ReturnType<typeof createPendingStarts>;
  connectToSlack: ReturnType<typeof slackStartUp>;
  paths: DeploymentPaths;
  startup: ReturnType<typeof partTimer>;
  importedAt: number;
  onStopping: () => void;
}) {
  const { config, logger, store, jobs: built, bolt, http, metricsHttp, pending, startup } = o;
  const { readiness, tokens } = o.ops;
  let metricsPort: number | undefined;
  // The temp folder being made and swept: a memory store's is removed at stop only after.
  let preparing: Promise<void> = Promise.resolve();
  // Aborted by stop(): a start still waiting for Slack gives up.
  const starting = new AbortController();
  return {
    logger,
    store,
    jobs: built,
    /** The temp folder's disk as downloads found it: full since when, if it is. */
    diskFull: o.ops.diskFull,
    /** Once started with METRICS_PORT set: the port serving `/metrics` alone. */
    get metricsPort() {
      return metricsPort;
    },
    /**
     * Serves /healthz and /readyz, connects to Slack (rejects with a StartupError when it refuses
     * a token), then resumes every active job; resolves with the HTTP port.
     */
    async start(): Promise<number> {
      // Known before a probe arrives: the first round of the checks.
      const firstChecks = readiness.start();
      // /healthz and /readyz answer while Slack cannot be reached; Slack's requests wait
      // (503) until Bolt has checked the token.
      const port = await http.listen(config.port);
      metricsPort = await metricsHttp?.listen(config.metricsPort ?? 0);
      startup.lap("listen");
      logger.info({ port, metricsPort }, "serving /healthz and /readyz; connecting to Slack");
      // Meanwhile the runner prepares (temp folder, orphan files, the due queue filled once):
      // it runs no step and calls no Slack, so it need not wait for Slack's answer.
      const prepared = built.runner.prepare();
      preparing = prepared.catch(() => undefined);
      const connected = await o.connectToSlack(starting.signal);
      startup.lap("slack");
      // Stopped while waiting for Slack: nothing else was started.
      if (!connected) {
        await prepared.catch(() => undefined);
        return port;
      }
      // Installs by OAuth: an install's refused token is that install's (its tokens source
      // says so), not the deployment's SLACK_BOT_TOKEN.
      if (config.slack.oauth === undefined) tokens.arm();
      // /readyz says so now, not at the next check, unless the first check already passed;
      // no step waits for it (Bolt has just had the token checked).
      const slackChecked = readiness.report().slack ? Promise.resolve() : readiness.checkSlackNow();
      // The store's epoch is known before any step runs: a loss from now on is seen.
      await built.reset.start();
      startup.lap("reset");
      await prepared;
      startup.lap("prepared");
      // The first claim: nothing the steps do not need is awaited before it.
      await built.runner.begin();
      startup.lap("claiming");
      // What a run killed while the store was down kept: taken now, then as kept.
      pending.start();
      const resumed = await built.runner.countActive();
      startup.lap("countActive");
      await slackChecked;
      await firstChecks;
      startup.lap("checks");
      const mode = config.slack.appToken === undefined ? "http" : "socket";
      const bootMs = Math.round(performance.nodeTiming.bootstrapComplete);
      const imports = Math.round(o.importedAt) - bootMs;
      const startupMs = { node: bootMs, imports, ...startup.laps };
      logger.info({ port, metricsPort, mode, resumed, startupMs }, "meeting-notes started");
      return port;
    },
    /** Resolves once no Slack request is handled and no job step is under way or due. */
    async idle() {
      for (;;) {
        await bolt.handling.idle();
        await pending.settled();
        await built.installs.settled();
        await built.runner.settled();
        // A step may have started no listener, but a listener may have kicked a step.
        if (bolt.handling.size === 0) return;
      }
    },
    /** Stops taking work, lets requests and steps reach a checkpoint, closes the store. */
    async stop() {
      o.onStopping();
      starting.abort();
      readiness.stop();
      await Promise.all([
        http.close(),
        metricsHttp?.close(),
        bolt.stop().catch((error: unknown) => logger.warn({ err: error }, "bolt stop failed")),
      ]);
      // A listener that acked may still be starting a job: not cut off by the store closing.
      await withTimeout(bolt.handling.idle(), LISTENERS_STOP_MS, "listeners still running").catch(
        () => logger.warn("stopping with Slack requests still in hand"),
      );
      await pending.stop();
      await built.installs.settled();
      await built.runner.stop();
      await built.reset.stop();
      await preparing;
      await releaseDeploymentPaths(o.paths);
      await store.close();
      logger.info("meeting-notes stopped");
    },
  };
}
