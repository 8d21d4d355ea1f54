import { WebClient } from "@slack/web-api";
import { openMedia } from "./app-media.ts";
import type { AppDeps, MeetingNotesApp } from "./app-types.ts";
import type { Config } from "./config.ts";
import {
  claimDeploymentPaths,
  deploymentPaths,
  releaseDeploymentPaths,
} from "./deployment-paths.ts";
import { createHttpSurface, type HttpSurface, type Route } from "./http/http-surface.ts";
import { createJobs, DiskFullWatch, type Jobs } from "./jobs/index.ts";
import { createLogger, toSlackLogger } from "./logger.ts";
import { createPollSchedule, NoteTakerClient, watchNoteService } from "./notetaker/index.ts";
import { createAppReadiness } from "./observability/app-readiness.ts";
import { createMetrics } from "./observability/metrics.ts";
import { opsRoutes } from "./observability/ops-routes.ts";
import { slackStartUp } from "./slack/connection/connect-slack.ts";
import { createBoltApp, defaultSlackRetry } from "./slack/connection/create-bolt-app.ts";
import { createTokenWatch, noticeOutages } from "./slack/connection/slack-troubles.ts";
import { SlackDirectory } from "./slack/directory/slack-directory.ts";
import { slackHostsOf } from "./slack/gateway/download-slack-file.ts";
import { platformErrorOf } from "./slack/gateway/slack-errors.ts";
import { SlackGateway } from "./slack/gateway/slack-gateway.ts";
import { SlackStoreResetNotices } from "./slack/gateway/store-reset-notices.ts";
import { InstallClientCache } from "./slack/installs/install-clients.ts";
import {
  requestInstall,
  requestRateWorkspace,
  scopeRequests,
} from "./slack/installs/request-tenant.ts";
import { singleTokenSource } from "./slack/installs/token-source.ts";
import type { ListenerDeps } from "./slack/listeners/deps.ts";
import { registerListeners } from "./slack/listeners/index.ts";
import { createPendingStarts } from "./slack/listeners/replay-pending.ts";
import { SaidOnce } from "./slack/listeners/said-once.ts";
import { Permissions } from "./slack/permissions.ts";
import { SlackBudget } from "./slack/rate-budget/slack-budget.ts";
import { claimSignatures } from "./slack/requests/guard-requests.ts";
import { createResponder } from "./slack/responder/response-url.ts";
import { SlackResponder } from "./slack/responder/slack-responder.ts";
import { openStore } from "./store/index.ts";
import { optional } from "./util/optional.ts";
import { partTimer } from "./util/part-timer.ts";
import { withTimeout } from "./util/with-timeout.ts";

/**
 * When this module ran: after every module the app imports (main imports little besides),
 * so this less Node's own bootstrap is the time the imports took.
 */
const importedAt = performance.now();

export type { AppDeps, MeetingNotesApp };

/** How long a stop waits for listeners still handling requests. */
const LISTENERS_STOP_MS = 10_000;

const DAY_MS = 24 * 60 * 60_000;

/** The composition root: builds every part from the configuration, no logic of its own. */
export async function createApp(config: Config, deps: AppDeps = {}): Promise<MeetingNotesApp> {
  const logger = createLogger({
    level: config.logLevel,
    secrets: [
      config.slack.botToken,
      config.slack.appToken,
      config.slack.signingSecret,
      config.noteTaker.apiKey,
      config.slack.oauth?.clientSecret,
      config.slack.oauth?.stateSecret,
      config.slack.oauth?.tokenKey.toString("base64"),
    ],
    ...optional("destination", deps.logDestination),
  });
  // Where a start's time goes, in one line ("meeting-notes started"): Node's bootstrap and
  // the imports, then each part since (the configuration and logger first).
  const startup = partTimer(importedAt);
  startup.lap("config");
  // FFmpeg is looked for while the store opens and the app is built: it is process starts.
  const mediaOpened = openMedia(config, logger);
  mediaOpened.catch(() => undefined);
  // The store, and this deployment's temp folder and request journal made or checked
  // private, at once; a STORE_URL the store cannot open is said first, naming the variable.
  const paths = deploymentPaths(config.storeUrl, optional("tempDir", deps.tempDir));
  const [storeOpened, claimed] = await Promise.allSettled([
    openStore(config.storeUrl, {
      logger: logger.child({ name: "store" }),
      ...optional("timeoutMs", deps.storeTimeoutMs),
    }),
    claimDeploymentPaths(paths),
  ]);
  if (storeOpened.status === "rejected") throw storeOpened.reason;
  if (claimed.status === "rejected") throw claimed.reason;
  const opened = storeOpened.value;
  const { tempDir } = paths;
  const store = deps.wrapStore?.(opened) ?? opened;
  // Installs by OAuth: installations in the store, their tokens, /slack/install (loaded only
  // when configured).
  const oauth =
    config.slack.oauth === undefined
      ? undefined
      : (await import("./slack/installs/oauth-installs.ts")).createOAuthInstalls({
          oauth: config.slack.oauth,
          apiUrl: config.slack.apiUrl,
          store,
          logger,
          // Every job of a revoked install stops, those waiting for a person too (the token
          // source said why, once).
          onRevoked: (install) => {
            jobs?.installs
              .failJobs(install, "install_unavailable")
              .catch((error: unknown) =>
                logger.warn({ err: error, install }, "could not stop the jobs of an installation"),
              );
          },
        });
  // Several installs (OAuth's, or a test's): each request's and each job's token from its own.
  const installs =
    deps.installs ??
    (oauth === undefined ? undefined : { tokens: oauth.tokens, authorize: oauth.authorize });
  startup.lap("openStore");
  const dispatcher = optional("dispatcher", deps.dispatcher);
  // Configuration mistakes the Note Service's answers reveal, told once, naming the variable.
  const noteService = watchNoteService(logger.child({ name: "note-service" }), {
    ...optional("unreachableAfterMs", deps.noteServiceUnreachableAfterMs),
  });
  const noteTaker = new NoteTakerClient({
    baseUrl: config.noteTaker.baseUrl,
    apiKey: config.noteTaker.apiKey,
    resultLinks: { allowHosts: config.noteTaker.resultLinkHosts },
    logger,
    ...dispatcher,
    ...optional("retryPolicy", deps.noteTakerRetry),
    onRequest: (operation, outcome) => {
      metrics.onNoteServiceRequest(operation, outcome);
      noteService.onRequest(operation, outcome);
    },
  });
  let stopping = false;
  // The ops routes are built before Bolt's client and the job layer exist; they reach
  // those through these late-bound references.
  let jobs: Jobs | undefined;
  let socket: { connected: boolean } | undefined;
  const socketMode = config.slack.appToken === undefined ? {} : socketConnected(() => socket);
  const metrics = createMetrics({
    repo: { countActiveByStage: () => jobs?.repo.countActiveByStage() ?? Promise.resolve({}) },
    queues: () => jobs?.runner.stats() ?? { scheduled: 0, running: 0, queued: 0 },
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
    store,
    tempDir,
    diskFullSince: () => diskFull.fullSince,
    logger,
    storeResetAt: () => jobs?.reset.recentResetAt(),
    noteServiceDownSince: noteService.unreachableSince,
    tuning: deps.readiness,
    tokens,
    ...socketMode,
  });
  const ops = opsRoutes({
    alive: () => !stopping,
    ready: async () => readiness.report(),
    scrape: () => metrics.scrape(),
    onError: (error) => logger.error({ err: error }, "ops route failed"),
  });
  // Slack's limits per workspace: people waiting are never queued behind the job runner.
  const budget = new SlackBudget({
    logger: logger.child({ name: "slack-budget" }),
    onRateLimited: (method, _retryAfterS, caller) => metrics.onSlackRateLimited(method, caller),
    allowanceScale: config.slack.rateShare,
    distribution: config.slack.distribution,
    // A Slack call of the bot that got no answer: readiness asks auth.test now.
    fetch: noticeOutages(globalThis.fetch, () => readiness.suspectSlack()),
    ...deps.slackBudget,
  });
  const bolt = createBoltApp({
    config,
    logger,
    fetch: budget.fetchFor("interactive", false, requestRateWorkspace),
    claimSignature: claimSignatures(store, logger),
    now: () => store.now(),
    onListenerError: (error) => {
      const code = platformErrorOf(error);
      metrics.onSlackError("listener", code ?? "failed");
      tokens.failed(code);
    },
    ...optional("socketBackoff", deps.socketBackoff),
    onSocketReconnected: () => metrics.onSocketReconnected(),
    ...optional("authorize", installs?.authorize),
    ...optional("tokens", installs?.tokens),
  });
  // Every listener runs as a request of its install: its Slack calls carry that install's
  // token, its reads and writes are keyed by its tenant.
  bolt.app.use(scopeRequests(installs !== undefined));
  socket = bolt.socket;
  const botToken = config.slack.botToken;
  // Where every Slack call of a job gets its install's bot token. Without installs the
  // configuration holds the one token (it refuses to start without).
  const tokenSource = installs?.tokens ?? singleTokenSource(botToken ?? "");
  // Listeners' calls: Bolt's client with the one token; with installs, one whose calls carry
  // the token Bolt authorised the request in hand with, and its workspace as `team_id`.
  const client = bolt.client;
  const slackHosts = slackHostsOf(config.slack.apiUrl);
  // The job runner's own clients, per install: their calls are paced by the budget, those
  // of the urgent one (status changes people wait for) before the others. They send
  // nothing again themselves (the budget re-sends idempotent calls only); each call carries
  // the install's token as it is now.
  const installClients = new InstallClientCache({
    tokens: tokenSource,
    // An org-wide install's clients name their workspace (`team_id`) on every call.
    makeClient: (urgent, wrap, teamId, rateWorkspace) =>
      new WebClient(undefined, {
        ...optional("teamId", teamId),
        slackApiUrl: config.slack.apiUrl,
        logger: toSlackLogger(logger.child({ name: "slack-background" })),
        retryConfig: defaultSlackRetry,
        rejectRateLimitedCalls: true,
        fetch: wrap(budget.fetchFor("background", urgent, () => rateWorkspace)),
      }),
  });
  // Readiness may read it: the temp folder's disk found full by a download (and since when).
  const gateway = new SlackGateway({
    clientsOf: (install, teamId) => ({
      ...installClients.clientsFor(install, teamId),
      botToken: () => tokenSource.botToken(install),
    }),
    slackHosts,
    logger,
    ...dispatcher,
    onError: (operation, label) => {
      metrics.onSlackError(operation, label);
      tokens.failed(label);
    },
    diskFull,
    ...optional("openDownloadFile", deps.openDownloadFile),
    // "Started 3 minutes ago" reads the job's times with the clock they were written with.
    now: () => store.now(),
  });
  startup.lap("wire");
  const media = await mediaOpened;
  startup.lap("openMedia");
  jobs = createJobs({
    store,
    media,
    client: noteTaker,
    gateway,
    schedule: createPollSchedule({ initialMs: config.poll.initialMs, maxMs: config.poll.maxMs }),
    logger,
    tempDir,
    retentionMs: config.retentionDays * DAY_MS,
    admission: config.fairUse,
    regenerateCooldownMs: config.fairUse.regenerateCooldownMs,
    storeReset: {
      port: new SlackStoreResetNotices(
        (install, teamId) => installClients.clientsFor(install, teamId).urgentClient,
      ),
      ...optional("timings", deps.storeReset),
    },
    onStageChange: (job, from, ms) => {
      metrics.onStageChange(job, from, ms);
      deps.onStageChange?.(job, from, ms);
    },
    ...deps.jobs,
  });
  const { reset } = jobs;
  const directory = new SlackDirectory({
    client,
    botToken:
      installs === undefined ? (botToken ?? "") : () => tokenSource.botToken(requestInstall()),
    install: requestInstall,
    slackHosts,
    logger,
    ...dispatcher,
  });
  const respond = createResponder({ logger, ...dispatcher });
  const pending = createPendingStarts({
    ...deps.journal,
    path: deps.journal?.path ?? paths.journalPath,
    logger: logger.child({ name: "request-journal" }),
  });
  const listenerDeps: ListenerDeps = {
    jobs: jobs.service,
    settings: jobs.settings,
    uploads: jobs.uploads,
    templates: jobs.templates,
    modals: jobs.modals,
    installs: jobs.installs,
    ...optional("installRecords", oauth?.records),
    directory,
    responder: new SlackResponder({ client, logger }),
    permissions: new Permissions(directory),
    respond,
    logger,
    now: () => store.now(),
    storeResetNotice: (teamId, userId) => reset.noticeFor(teamId, userId),
    pending,
    saidLost: new SaidOnce(),
  };
  registerListeners(bolt.app, listenerDeps);
  pending.bind(listenerDeps);
  const built = jobs;
  const serve = (routes: Route[]): HttpSurface =>
    createHttpSurface({
      routes,
      logger: logger.child({ name: "http" }),
      ...optional("timeouts", deps.httpTimeouts),
    });
  const slackRoutes = bolt.slackRoute === undefined ? [] : [bolt.slackRoute];
  const separateMetrics = config.metricsPort !== undefined;
  const http = serve([
    ...ops.health,
    ...(separateMetrics ? [] : [ops.metrics]),
    ...slackRoutes,
    ...(oauth?.routes ?? []),
  ]);
  const metricsHttp = separateMetrics ? serve([ops.metrics]) : undefined;
  let metricsPort: number | undefined;
  // The temp folder being made and swept: a memory store's is removed at stop only after.
  let preparing: Promise<void> = Promise.resolve();
  // Aborted by stop(): a start still waiting for Slack gives up.
  const starting = new AbortController();
  const connectToSlack = slackStartUp({ config, logger, bolt, backoff: deps.socketBackoff });
  startup.lap("build");

  return {
    logger,
    store,
    jobs: built,
    diskFull,
    get metricsPort() {
      return metricsPort;
    },
    async start() {
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
      const connected = await connectToSlack(starting.signal);
      startup.lap("slack");
      // Stopped while waiting for Slack: nothing else was started.
      if (!connected) {
        await prepared.catch(() => undefined);
        return port;
      }
      // Installs by OAuth: an install's refused token is that install's (its tokens source
      // says so), not the deployment's SLACK_BOT_TOKEN.
      if (oauth === undefined) tokens.arm();
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
      const startupMs = { node: bootMs, imports: Math.round(importedAt) - bootMs, ...startup.laps };
      logger.info({ port, metricsPort, mode, resumed, startupMs }, "meeting-notes started");
      return port;
    },
    async idle() {
      for (;;) {
        await bolt.handling.idle();
        await pending.settled();
        await built.runner.settled();
        // A step may have started no listener, but a listener may have kicked a step.
        if (bolt.handling.size === 0) return;
      }
    },
    async stop() {
      stopping = true;
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
      await built.runner.stop();
      await built.reset.stop();
      await preparing;
      await releaseDeploymentPaths(paths);
      await store.close();
      logger.info("meeting-notes stopped");
    },
  };
}

/** Socket Mode's readiness and metrics source: the connection, bound once Bolt is built. */
function socketConnected(socket: () => { connected: boolean } | undefined) {
  return { socketConnected: () => socket()?.connected ?? false };
}
