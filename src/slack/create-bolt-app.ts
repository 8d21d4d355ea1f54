import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { App, AuthorizationError, HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import type { RetryOptions } from "@slack/web-api";
import type { Config } from "../config.ts";
import { type Logger, toSlackLogger } from "../logger.ts";
import type { OpsRoute } from "../observability/ops-routes.ts";
import { guardRequests } from "./guard-requests.ts";

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

/** Web API retries: a few, quickly; the job runner's failure policy takes over after. */
export const defaultSlackRetry: RetryOptions = {
  retries: 4,
  factor: 2,
  minTimeout: 500,
  maxTimeout: 10_000,
};

export interface BoltAppOptions {
  config: Config;
  logger: Logger;
  /** Served next to Slack's endpoint in both modes (health, readiness, metrics). */
  routes: OpsRoute[];
  retryConfig?: RetryOptions;
  /** Told of every listener that failed (metrics). */
  onListenerError?: (error: unknown) => void;
}

export interface BoltApp {
  app: App;
  /** Starts receiving; resolves with the HTTP port (health in Socket Mode, everything in HTTP). */
  start(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Bolt in the mode the configuration says: Socket Mode when an app token is set (no public
 * URL needed), else HTTP with events, commands and interactivity at `POST /slack/events`.
 * The ops routes (`/healthz`, `/readyz`, `/metrics`) are served in both modes.
 */
export function createBoltApp(options: BoltAppOptions): BoltApp {
  const { config } = options;
  const logger = toSlackLogger(options.logger.child({ name: "bolt" }));
  const customRoutes = options.routes;
  const socketMode = config.slack.appToken !== undefined;
  const receiver = socketMode
    ? new SocketModeReceiver({
        appToken: config.slack.appToken ?? "",
        logger,
        customRoutes,
        installerOptions: { port: config.port },
      })
    : new HTTPReceiver({
        signingSecret: config.slack.signingSecret ?? "",
        endpoints: "/slack/events",
        customRoutes,
        logger,
        processEventErrorHandler: answerProcessingError(options.logger),
      });
  const app = new App({
    token: config.slack.botToken,
    receiver,
    logger,
    clientOptions: {
      slackApiUrl: config.slack.apiUrl,
      retryConfig: options.retryConfig ?? defaultSlackRetry,
    },
  });
  app.error(async (error) => {
    options.onListenerError?.(error);
    options.logger.error({ err: error }, "a Slack listener failed");
  });
  return {
    app,
    async start() {
      if (socketMode) {
        await app.start();
        return config.port;
      }
      const server = await app.start(config.port);
      if (receiver instanceof HTTPReceiver) {
        // Same server and lifecycle, with a guard in front of Bolt's listener.
        server.removeAllListeners("request");
        server.on(
          "request",
          guardRequests(receiver.requestListener, config.slack.signingSecret ?? ""),
        );
      }
      return (server.address() as AddressInfo).port;
    },
    stop: () => app.stop().then(() => undefined),
  };
}
