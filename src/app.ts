import { appLifecycle, type MeetingNotesApp } from "./app-lifecycle.ts";
import { openMedia } from "./app-media.ts";
import { serveHttp, wireOps } from "./app-ops.ts";
import { wireListeners, wireSlack } from "./app-slack.ts";
import type { AppDeps } from "./app-types.ts";
import type { Config } from "./config.ts";
import { claimDeploymentPaths, deploymentPaths } from "./deployment-paths.ts";
import { createJobs, type Jobs } from "./jobs/index.ts";
import { createLogger } from "./logger.ts";
import { createPollSchedule, NoteTakerClient, watchNoteService } from "./notetaker/index.ts";
import { slackStartUp } from "./slack/connection/connect-slack.ts";
import { SlackStoreResetNotices } from "./slack/gateway/store-reset-notices.ts";
import { openStore } from "./store/index.ts";
import { optional } from "./util/optional.ts";
import { partTimer } from "./util/part-timer.ts";

/**
 * When this module ran: after every module the app imports (main imports little besides),
 * so this less Node's own bootstrap is the time the imports took.
 */
const importedAt = performance.now();

export type { AppDeps, MeetingNotesApp };

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
  let stopping = false;
  // The ops routes are built before Bolt's client and the job layer exist; they reach
  // those through these late-bound references.
  let jobs: Jobs | undefined;
  let socket: { connected: boolean } | undefined;
  const ops = wireOps({
    config,
    deps,
    logger,
    store,
    tempDir,
    noteService,
    late: { jobs: () => jobs, socket: () => socket },
    alive: () => !stopping,
  });
  const { metrics } = ops;
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
  const slack = wireSlack({ config, deps, logger, store, ops, installs, dispatcher });
  const { bolt, installClients } = slack;
  socket = bolt.socket;
  startup.lap("wire");
  const media = await mediaOpened;
  startup.lap("openMedia");
  jobs = createJobs({
    store,
    media,
    client: noteTaker,
    gateway: slack.gateway,
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
  const pending = wireListeners({
    deps,
    logger,
    store,
    slack,
    jobs,
    installs,
    installRecords: oauth?.records,
    paths,
    dispatcher,
  });
  const slackRoutes = bolt.slackRoute === undefined ? [] : [bolt.slackRoute];
  const { http, metricsHttp } = serveHttp({
    config,
    deps,
    logger,
    ops,
    routes: [...slackRoutes, ...(oauth?.routes ?? [])],
  });
  const connectToSlack = slackStartUp({ config, logger, bolt, backoff: deps.socketBackoff });
  startup.lap("build");
  return appLifecycle({
    config,
    logger,
    store,
    jobs,
    ops,
    bolt,
    http,
    metricsHttp,
    pending,
    connectToSlack,
    paths,
    startup,
    importedAt,
    onStopping: () => {
      stopping = true;
    },
  });
}
