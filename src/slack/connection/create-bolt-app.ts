import type { ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { Authorize, SocketModeReceiverProcessEventErrorHandlerArgs } from "@slack/bolt";

// Bolt's classes by deep path: its index also loads the Express and Lambda receivers neither
// mode uses. `require`, since their `exports.default` reads differently under Node and vitest.
const require = createRequire(import.meta.url);
// App requires both receivers and the OAuth installer at load: each waits for its first use.
deferRequire(require, "@slack/bolt/dist/receivers/SocketModeReceiver.js", true);
deferRequire(createRequire(require.resolve("@slack/bolt/dist/App.js")), "@slack/oauth", true);
const { default: App } =
  require("@slack/bolt/dist/App.js") as typeof import("@slack/bolt/dist/App.js");
const { AuthorizationError } =
  require("@slack/bolt/dist/errors.js") as typeof import("@slack/bolt/dist/errors.js");
const { default: HTTPReceiver } =
  require("@slack/bolt/dist/receivers/HTTPReceiver.js") as typeof import("@slack/bolt/dist/receivers/HTTPReceiver.js");
type HTTPReceiver = InstanceType<typeof HTTPReceiver>;
const socketModeReceiver = () =>
  (
    require("@slack/bolt/dist/receivers/SocketModeReceiver.js") as typeof import("@slack/bolt/dist/receivers/SocketModeReceiver.js")
  ).default;

import type { RetryOptions } from "@slack/web-api";
import type { Config } from "../../config.ts";
import type { Route } from "../../http/http-surface.ts";
import { type Logger, toSlackLogger } from "../../logger.ts";
import { deferRequire } from "../../util/defer-require.ts";
import { InFlight } from "../../util/in-flight.ts";
import { optional } from "../../util/optional.ts";
import { installUnavailableIn } from "../gateway/slack-errors.ts";
import { renewRefusedToken } from "../installs/renew-refused-token.ts";
import { RequestAuthorizedClient, withRequestAuth } from "../installs/request-client.ts";
import { requestInstall, workspaceOfContext } from "../installs/request-tenant.ts";
import type { TokenSource } from "../installs/token-source.ts";
import type { FetchFunction } from "../rate-budget/slack-budget.ts";
import { guardRequests } from "../requests/guard-requests.ts";
import { createSocketConnection, type ReconnectBackoff } from "./socket-connection.ts";

/**
 * A payload Bolt cannot read (a TypeError) is the sender's fault: 400, not retried. Anything
 * else stays a 500, so Slack retries the event later.
 */
function answerProcessingError(logger: Logger) {
  return async (args: { error: unknown; response: ServerResponse }): Promise<boolean> => {
    const { error, response } = args;
    logger.warn({ err: error }, "a Slack request could not be processed");
    if (response.headersSent) return false;
    const status =
      error instanceof AuthorizationError ? 401 : error instanceof TypeError ? 400 : 500;
    response.writeHead(status);
    response.end();
    return status !== 500;
  };
}

/** The same over the socket: unreadable or unauthorizable is acked, anything else redelivered. */
function ackUnprocessable(logger: Logger) {
  return async (args: SocketModeReceiverProcessEventErrorHandlerArgs): Promise<boolean> => {
    logger.warn({ err: args.error }, "a Slack envelope could not be processed");
    return args.error instanceof AuthorizationError || args.error instanceof TypeError;
  };
}

/**
 * The client cannot tell a call that may be repeated from one that must not (a lost
 * `chat.postMessage` would post twice): only the budget re-sends, idempotent calls only.
 */
export const defaultSlackRetry: RetryOptions = { retries: 0 };

export interface BoltAppOptions {
  config: Config;
  logger: Logger;
  claimSignature: (signature: string, ttlMs: number) => Promise<boolean>;
  /** HTTP mode: the store's clock, which a jump of the host's wall clock does not move. */
  now?: () => number;
  retryConfig?: RetryOptions;
  fetch?: FetchFunction;
  onListenerError?: (error: unknown) => void;
  socketBackoff?: Partial<ReconnectBackoff>;
  onSocketReconnected?: () => void;
  authorize?: Authorize<boolean>;
  tokens?: TokenSource;
}

/** How long a listener's call waits for a refused token's renewal: a `trigger_id` lives 3 s. */
export const LISTENER_RENEW_MS = 1_000;

export type BoltApp = ReturnType<typeof createBoltApp>;

/**
 * Bolt in Socket Mode when an app token is set, else HTTP. Bolt runs no HTTP server: the HTTP
 * receiver's listener is handed out behind {@link guardRequests}, the one signature check.
 */
export function createBoltApp(options: BoltAppOptions) {
  const { config } = options;
  const logger = toSlackLogger(options.logger.child({ name: "bolt" }));
  // People wait on these clients: a rate-limited call fails at once rather than queueing.
  const clientOptions = {
    slackApiUrl: config.slack.apiUrl,
    retryConfig: options.retryConfig ?? defaultSlackRetry,
    rejectRateLimitedCalls: true,
    ...optional("fetch", options.fetch),
  };
  const appToken = config.slack.appToken;
  const receiver =
    appToken !== undefined
      ? new (socketModeReceiver())({
          appToken,
          logger,
          // A copy: the Socket Mode client keeps the object it is given and may fill it in.
          installerOptions: { clientOptions: { ...clientOptions } },
          // socket-connection.ts reconnects: the client's own gives up for good.
          autoReconnectEnabled: false,
          processEventErrorHandler: ackUnprocessable(options.logger),
        })
      : new HTTPReceiver({
          // The guard checks signatures (on the store's clock, unlike Bolt's Date.now).
          signatureVerification: false,
          signingSecret: "",
          endpoints: "/slack/events",
          logger,
          processEventErrorHandler: answerProcessingError(options.logger),
        });
  // Deferred: a refused token then stops the start with its reason instead of an unawaited promise.
  const app = new App({
    ...(options.authorize === undefined
      ? { token: config.slack.botToken }
      : { authorize: options.authorize }),
    receiver,
    logger,
    clientOptions,
    deferInitialization: true,
  });
  const handling = new InFlight();
  app.use(({ next }) => handling.run(next));
  const client =
    options.authorize === undefined
      ? app.client
      : new RequestAuthorizedClient({
          ...clientOptions,
          logger,
          ...optional("fetch", renewing(options.tokens, options.fetch ?? globalThis.fetch)),
        });
  if (options.authorize !== undefined) {
    app.use(({ context, next }) =>
      withRequestAuth(
        context.botToken === undefined
          ? undefined
          : { botToken: context.botToken, teamId: workspaceOfContext(context) },
        next,
      ),
    );
  }
  app.error(async (error) => {
    // No install for the workspace: the receiver's handler answers it (401, or acked).
    if (error instanceof AuthorizationError) throw error;
    options.onListenerError?.(error);
    // A lost install is logged once at error level where it is found.
    const lost = installUnavailableIn(error) !== undefined;
    options.logger[lost ? "warn" : "error"]({ err: error }, "a Slack listener failed");
  });
  // Bolt throws on requests before `app.init()` succeeds.
  let initialized = false;
  const init = async () => {
    await app.init();
    initialized = true;
  };
  // HTTPReceiver is never started (our server serves its listener), so never stopped.
  const socket =
    receiver instanceof HTTPReceiver
      ? undefined
      : createSocketConnection({
          client: receiver.client,
          logger: options.logger.child({ name: "socket-mode" }),
          ...optional("backoff", options.socketBackoff),
          ...optional("onReconnected", options.onSocketReconnected),
        });
  return {
    app,
    client,
    handling,
    /** Until Bolt's auth.test succeeds (`init`) it answers 503. */
    slackRoute:
      receiver instanceof HTTPReceiver
        ? slackRoute(receiver, options, () => initialized)
        : undefined,
    socket,
    init,
    // Bolt's stop() does not wait for the socket to close.
    start: async () => socket?.start(),
    stop: async () => socket?.stop(),
  };
}

/**
 * Before Bolt is initialised, 503: Slack sends the event again
 * (https://docs.slack.dev/apis/events-api/, "Retries").
 */
function slackRoute(
  receiver: HTTPReceiver,
  options: BoltAppOptions,
  initialized: () => boolean,
): Route {
  const guarded = guardRequests(receiver.requestListener, {
    signingSecret: options.config.slack.signingSecret ?? "",
    claimSignature: options.claimSignature,
    logger: options.logger.child({ name: "slack-requests" }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const handle: Route["handle"] = (req, res) => {
    if (initialized()) return guarded(req, res);
    req.resume();
    res.writeHead(503, { "retry-after": "5", connection: "close" }).end();
  };
  return { path: "/slack/events", methods: ["POST"], readsBody: true, handle };
}

function renewing(tokens: TokenSource | undefined, fetch: FetchFunction) {
  if (tokens === undefined) return undefined;
  return renewRefusedToken(fetch, tokens, requestInstall, { withinMs: LISTENER_RENEW_MS });
}
