import { WebClient } from "@slack/web-api";
import type { Dispatcher } from "undici";
import type { Ops } from "./app-ops.ts";
import type { AppDeps } from "./app-types.ts";
import type { Config } from "./config.ts";
import type { DeploymentPaths } from "./deployment-paths.ts";
import type { Jobs } from "./jobs/index.ts";
import { type Logger, toSlackLogger } from "./logger.ts";
import { createBoltApp, defaultSlackRetry } from "./slack/connection/create-bolt-app.ts";
import { noticeOutages } from "./slack/connection/slack-troubles.ts";
import { SlackDirectory } from "./slack/directory/slack-directory.ts";
import { slackHostsOf } from "./slack/gateway/download-slack-file.ts";
import { platformErrorOf } from "./slack/gateway/slack-errors.ts";
import { SlackGateway } from "./slack/gateway/slack-gateway.ts";
import { InstallClientCache } from "./slack/installs/install-clients.ts";
import type { InstallRecords } from "./slack/installs/install-records.ts";
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
import type { Store } from "./store/index.ts";
import { optional } from "./util/optional.ts";

/** The Slack side: Bolt, its rate budget, and the jobs' clients and gateway. */
export type SlackSide = ReturnType<typeof wireSlack>;

export function wireSlack(o: {
  config: Config;
  deps: AppDeps;
  logger: Logger;
  store: Store;
  ops: Ops;
  installs: AppDeps["installs"];
  dispatcher: { dispatcher?: Dispatcher };
}) {
  const { config, deps, logger, store, installs, dispatcher } = o;
  const { metrics, tokens, readiness, diskFull } = o.ops;
  // Slack's limits per workspace: people waiting are never queued behind the job runner.
  const budget = new SlackBudget({
    logger: logger.child({ name: "slack-budget" }),
    onRateLimited: (method, _retryAfterS, caller) => metrics.onSlackRateLimited(method, caller),
    allowanceScale: config.slack.rateShare,
    distribution: config.slack.distribution,
    ...deps.slackBudget,
    // A Slack call of the bot that got no answer: readiness asks auth.test now.
    fetch: noticeOutages(deps.slackBudget?.fetch ?? globalThis.fetch, () =>
      readiness.suspectSlack(),
    ),
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
  const botToken = config.slack.botToken;
  // Where every Slack call of a job gets its install's bot token. Without installs the
  // configuration holds the one token (it refuses to start without).
  const tokenSource = installs?.tokens ?? singleTokenSource(botToken ?? "");
  const slackHosts = slackHostsOf(config.slack.apiUrl);
  // The job runner's own clients, per install, paced by the budget with status changes people
  // wait for first. They send nothing again themselves (the budget re-sends idempotent calls
  // only), and each call carries the install's token as it is now.
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
  return { bolt, botToken, tokenSource, slackHosts, installClients, gateway };
}

/** The listeners on Bolt, with what they read and say, and the request journal they fill. */
export function wireListeners(o: {
  deps: AppDeps;
  logger: Logger;
  store: Store;
  slack: SlackSide;
  jobs: Jobs;
  installs: AppDeps["installs"];
  installRecords: InstallRecords | undefined;
  paths: DeploymentPaths;
  dispatcher: { dispatcher?: Dispatcher };
}) {
  const { deps, logger, store, jobs, dispatcher } = o;
  const { bolt, botToken, tokenSource, slackHosts } = o.slack;
  // Listeners' calls: Bolt's client with the one token; with installs, one whose calls carry
  // the token Bolt authorised the request in hand with, and its workspace as `team_id`.
  const client = bolt.client;
  const directory = new SlackDirectory({
    client,
    botToken:
      o.installs === undefined ? (botToken ?? "") : () => tokenSource.botToken(requestInstall()),
    install: requestInstall,
    slackHosts,
    logger,
    ...dispatcher,
  });
  const respond = createResponder({ logger, ...dispatcher });
  const pending = createPendingStarts({
    ...deps.journal,
    path: deps.journal?.path ?? o.paths.journalPath,
    logger: logger.child({ name: "request-journal" }),
  });
  const listenerDeps: ListenerDeps = {
    jobs: jobs.service,
    settings: jobs.settings,
    uploads: jobs.uploads,
    templates: jobs.templates,
    modals: jobs.modals,
    installs: jobs.installs,
    ...optional("installRecords", o.installRecords),
    directory,
    responder: new SlackResponder({ client, logger }),
    permissions: new Permissions(directory),
    respond,
    logger,
    now: () => store.now(),
    storeResetNotice: (teamId, userId) => jobs.reset.noticeFor(teamId, userId),
    pending,
    saidLost: new SaidOnce(),
  };
  registerListeners(bolt.app, listenerDeps);
  pending.bind(listenerDeps);
  return pending;
}
