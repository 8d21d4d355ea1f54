import type { ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { Authorize, SocketModeReceiverProcessEventErrorHandlerArgs } from "@slack/bolt";

// The classes from their own modules, not Bolt's index: the index also loads the Express
// and AWS Lambda receivers (express, body-parser and ~60 more modules, ~5 MB of RSS) that
// neither mode uses. Bolt has no `exports` map; the deep paths are its published files.
// Loaded with `require`: they are CommonJS modules whose class is `exports.default`, which
// an ESM default import gives differently under Node and under the test runner.
const require = createRequire(import.meta.url);
// Bolt's App requires both receivers, and each requires Slack's OAuth installer, at load:
// the Socket Mode client (its WebSocket, ~9 MB of RSS and 118 modules) in HTTP mode, the
// installer in either, though a single-token app uses neither. Each is loaded at its first
// use instead (create-bolt-app loads the receiver its mode uses).
deferRequire(require, "@slack/bolt/dist/receivers/SocketModeReceiver.js", true);
deferRequire(createRequire(require.resolve("@slack/bolt/dist/App.js")), "@slack/oauth", true);
const { default: App } =
  require("@slack/bolt/dist/App.js") as typeof import("@slack/bolt/dist/App.js");
type App = InstanceType<typeof App>;
const { AuthorizationError } =
  require("@slack/bolt/dist/errors.js") as typeof import("@slack/bolt/dist/errors.js");
const { default: HTTPReceiver } =
  require("@slack/bolt/dist/receivers/HTTPReceiver.js") as typeof import("@slack/bolt/dist/receivers/HTTPReceiver.js");
type HTTPReceiver = InstanceType<typeof HTTPReceiver>;
/** Socket Mode's receiver, loaded when the mode is Socket Mode. */
const socketModeReceiver = () =>
  (
    require("@slack/bolt/dist/receivers/SocketModeReceiver.js") as typeof import("@slack/bolt/dist/receivers/SocketModeReceiver.js")
  ).default;

import type { RetryOptions, WebClient } from "@slack/web-api";
import type { Config } from "../config.ts";
import type { Route } from "../http/http-surface.ts";
import { type Logger, toSlackLogger } from "../logger.ts";
import { deferRequire } from "../util/defer-require.ts";
import { optional } from "../util/optional.ts";
import { installUnavailableIn } from "./gateway/slack-errors.ts";
import { guardRequests } from "./guard-requests.ts";
import { InFlight } from "./in-flight.ts";
import { renewRefusedToken } from "./installs/renew-refused-token.ts";
import { RequestAuthorizedClient, withRequestAuth } from "./installs/request-client.ts";
import { requestInstall, workspaceOfContext } from "./installs/request-tenant.ts";
import type { TokenSource } from "./installs/token-source.ts";
import type { FetchFunction } from "./rate-budget/slack-budget.ts";
import {
  createSocketConnection,
  type ReconnectBackoff,
  type SocketConnection,
} from "./socket-connection.ts";

/**
 * What an HTTP request gets when Bolt or a listener throws before acking. A payload Bolt
 * cannot read (a field it relies on missing or of the wrong type shows as a TypeError) is
 * the sender's fault: 400, so it is not retried. Anything else stays a 500, so Slack
 * retries the event later.
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

/**
 * The same rule over the socket: an envelope Bolt cannot read, or one for a workspace it
 * cannot authorize, is acked (Slack would only send it again); anything else is left
 * unacked, so Slack redelivers it, as a 500 makes it retry over HTTP.
 */
function ackUnprocessable(logger: Logger) {
  return async (args: SocketModeReceiverProcessEventErrorHandlerArgs): Promise<boolean> => {
    logger.warn({ err: args.error }, "a Slack envelope could not be processed");
    return args.error instanceof AuthorizationError || args.error instanceof TypeError;
  };
}

/**
 * The Web API client sends nothing again by itself: it cannot tell a call that may be
 * repeated from one that must not (`chat.postMessage` whose answer was lost would be posted
 * twice). The rate budget under it (`SlackBudget`, through the `fetch` option) sends
 * idempotent calls again after a lost answer; the job runner's failure policy and the
 * callers' own look-ups take over for the others.
 */
export const defaultSlackRetry: RetryOptions = { retries: 0 };

export interface BoltAppOptions {
  config: Config;
  logger: Logger;
  /** HTTP mode: remembers an accepted request signature, so a replay is refused. */
  claimSignature: (signature: string, ttlMs: number) => Promise<boolean>;
  /**
   * HTTP mode: the clock a request's timestamp is judged by — the store's, which a jump of
   * the host's wall clock does not move (Slack's timestamps stay true when the host's clock
   * is set 10 minutes off, and every request would be refused as stale).
   */
  now?: () => number;
  retryConfig?: RetryOptions;
  /** The interactive calls' `fetch` (`SlackBudget.fetchFor("interactive")`). */
  fetch?: FetchFunction;
  /** Told of every listener that failed (metrics). */
  onListenerError?: (error: unknown) => void;
  /** Socket Mode: waits between reconnection attempts (tests shorten them). */
  socketBackoff?: Partial<ReconnectBackoff>;
  /** Socket Mode: told each time the connection is back after it was lost (metrics). */
  onSocketReconnected?: () => void;
  /**
   * Installs by OAuth: Bolt's `authorize` (each request's install → its bot token), in
   * place of the single bot token.
   */
  authorize?: Authorize<boolean>;
  /**
   * Installs by OAuth: where a listener's call gets a fresh token when Slack refuses the one
   * Bolt authorised the request with (see {@link LISTENER_RENEW_MS}).
   */
  tokens?: TokenSource;
}

/**
 * How long a listener's call waits for its refused token to be renewed before Slack's
 * refusal stands: a `trigger_id` lives 3 seconds from the click, and a refresh another
 * replica holds the lease of may take longer (the next request finds its token).
 */
export const LISTENER_RENEW_MS = 1_000;

export interface BoltApp {
  app: App;
  /**
   * The client listeners call Slack with: Bolt's own with the single token; with installs by
   * OAuth, one whose calls carry the token Bolt authorised the request in hand with.
   */
  client: WebClient;
  /** HTTP mode: `POST /slack/events`, guarded, for our HTTP server; undefined in Socket Mode. */
  slackRoute: Route | undefined;
  /** Socket Mode: the connection to Slack (readiness, metrics); undefined in HTTP mode. */
  socket: Pick<SocketConnection, "connected"> | undefined;
  /** Slack requests whose listeners are still running (acked or not). */
  handling: InFlight;
  /**
   * Checks the bot token (Bolt's auth.test); may be tried again after a failure. Until it
   * has succeeded, `slackRoute` answers 503 (Bolt cannot process a request before).
   */
  init(): Promise<void>;
  /** Socket Mode: connects to Slack. HTTP mode: nothing to start (our server serves Bolt). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Bolt in the mode the configuration says: Socket Mode when an app token is set (no public
 * URL needed), else HTTP with events, commands and interactivity at `POST /slack/events`.
 * Bolt runs no HTTP server of its own in either mode: Socket Mode gets no custom routes
 * (so it starts none), and the HTTP receiver is never started — its request listener is
 * handed out behind {@link guardRequests} as `slackRoute`, which alone checks each request's
 * signature (headers and size before the body is read, then the HMAC, the timestamp on the store's
 * clock, and replay): Bolt's
 * own check is off (`signatureVerification: false`, an HTTPReceiver option) and Bolt is
 * given no signing secret, so its listener is reachable only through the guard.
 */
export function createBoltApp(options: BoltAppOptions): BoltApp {
  const { config } = options;
  const logger = toSlackLogger(options.logger.child({ name: "bolt" }));
  // One Web API base and retry policy for every Slack call, `apps.connections.open` too.
  // These clients serve people waiting (acks, modals): a rate-limited call fails at once
  // rather than pausing every other call behind Slack's Retry-After.
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
          // Reconnection is ours (socket-connection.ts): the client's gives up for good.
          autoReconnectEnabled: false,
          processEventErrorHandler: ackUnprocessable(options.logger),
        })
      : new HTTPReceiver({
          // The guard verified the request, once (see slackRoute), its timestamp on the
          // store's clock: Bolt's own check reads the wall clock (Date.now), and refused every
          // request once it was set 10 minutes off.
          signatureVerification: false,
          signingSecret: "",
          endpoints: "/slack/events",
          logger,
          processEventErrorHandler: answerProcessingError(options.logger),
        });
  // Bolt checks the token with auth.test: deferred to `init()`, where a refusal stops the
  // start with its reason, instead of a promise Bolt makes in its constructor and nobody
  // awaits until the first event.
  const app = new App({
    ...(options.authorize === undefined
      ? { token: config.slack.botToken }
      : { authorize: options.authorize }),
    receiver,
    logger,
    clientOptions,
    deferInitialization: true,
  });
  // Counted from before any listener runs (so before anything is acked) until every
  // listener of the request has finished.
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
    // A request of a workspace without an install (OAuth mode): thrown on, so the receiver's
    // handler answers it (401 over HTTP; acked over the socket) instead of Bolt acking it.
    if (error instanceof AuthorizationError) throw error;
    options.onListenerError?.(error);
    // The install lost its tokens: the token source said so once, at error level.
    const lost = installUnavailableIn(error) !== undefined;
    options.logger[lost ? "warn" : "error"]({ err: error }, "a Slack listener failed");
  });
  // Bolt processes nothing before `app.init()` has succeeded (it throws); our server, which
  // answers /healthz and /readyz while Slack is out of reach, holds Slack's requests until then.
  let initialized = false;
  const init = async () => {
    await app.init();
    initialized = true;
  };
  if (receiver instanceof HTTPReceiver) {
    return {
      app,
      client,
      handling,
      slackRoute: slackRoute(receiver, options, () => initialized),
      socket: undefined,
      init,
      // Never started, so never stopped: HTTPReceiver.stop() rejects when not started.
      start: async () => {},
      stop: async () => {},
    };
  }
  const socket = createSocketConnection({
    client: receiver.client,
    logger: options.logger.child({ name: "socket-mode" }),
    ...optional("backoff", options.socketBackoff),
    ...(options.onSocketReconnected === undefined
      ? {}
      : { onReconnected: options.onSocketReconnected }),
  });
  return {
    app,
    client,
    handling,
    slackRoute: undefined,
    socket,
    // Bolt's app.start() only starts the receiver, and its stop() does not wait for the
    // socket to close: the connection is started and closed here instead.
    init,
    start: () => socket.start(),
    stop: () => socket.stop(),
  };
}

/**
 * `POST /slack/events`: Bolt's request listener behind the request checks, once Bolt is
 * initialised. Before, 503 with `Retry-After`: Slack sends an event again later
 * (https://docs.slack.dev/apis/events-api/, "Retries"), and nothing is checked or
 * remembered of a request not handled.
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

/**
 * The listeners' `fetch` with installs: a call Slack refuses for its token is sent once more
 * with the token the request's install renews (within {@link LISTENER_RENEW_MS}), as the
 * job runner's calls are.
 */
function renewing(tokens: TokenSource | undefined, fetch: FetchFunction) {
  if (tokens === undefined) return undefined;
  return renewRefusedToken(fetch, tokens, requestInstall, { withinMs: LISTENER_RENEW_MS });
}
