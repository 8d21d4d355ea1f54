import type { Config } from "../config.ts";
import { type Logger, quiet, toSlackLogger } from "../logger.ts";
import { StartupError } from "../startup-error.ts";
import { BACKOFFS, backoffDelayMs } from "../util/backoff.ts";
import { slackAuthProbe } from "./auth-probe.ts";
import type { BoltApp } from "./create-bolt-app.ts";
import {
  appTokenRefusedAtStart,
  botTokenRefusedAtStart,
  type SlackTrouble,
  troubleOf,
} from "./slack-troubles.ts";
import type { ReconnectBackoff } from "./socket-connection.ts";

/** What connecting to Slack at start-up runs, in order. */
export interface ConnectSlackOptions {
  /** One quiet `auth.test` with the bot token (no retries, no log lines of its own). */
  probe: () => Promise<unknown>;
  /** Bolt's own initialisation (its `auth.test`): once the probe got an answer. */
  init: () => Promise<void>;
  /** Socket Mode: opens the socket with the app-level token. */
  connect?: (() => Promise<void>) | undefined;
  logger: Logger;
  /** Waits between tries while Slack cannot be reached; default 1 s doubling to 30 s. */
  backoff?: Partial<ReconnectBackoff> | undefined;
  /** Aborted when the bot stops: the tries end. */
  signal: AbortSignal;
}

/**
 * Connects to Slack at start-up, for as long as it takes: a token Slack refuses stops the
 * start with a {@link StartupError} naming the variable; Slack out of reach (DNS, a refused
 * connection, a timeout, an outage page) is tried again with a doubling wait, saying so in
 * one warning line (not one a try), then "connected to Slack" once it answers. Resolves
 * true once connected, false when stopped first.
 */
export async function connectSlack(options: ConnectSlackOptions): Promise<boolean> {
  const { logger, signal } = options;
  const backoff: ReconnectBackoff = { ...BACKOFFS.slackReconnect, ...options.backoff };
  let warned = false;
  const tryUntilAnswered = async (
    attempt: () => Promise<unknown>,
    refused: (code: string) => string,
  ): Promise<boolean> => {
    for (let tries = 1; !signal.aborted; tries += 1) {
      const trouble = await attempt().then(
        () => undefined,
        (error: unknown): SlackTrouble => troubleOf(error),
      );
      if (trouble === undefined) return true;
      if (trouble.kind === "refused") throw new StartupError(refused(trouble.code));
      if (!warned) {
        warned = true;
        logger.warn(
          { reason: trouble.reason },
          `Slack cannot be reached (${trouble.reason}): trying again, at least every ${Math.round(backoff.maxMs / 1000)} s; /readyz answers 503 meanwhile`,
        );
      }
      await pause(backoffDelayMs(backoff, tries - 1), signal);
    }
    return false;
  };
  const probeThenInit = async () => {
    await options.probe();
    await options.init();
  };
  if (!(await tryUntilAnswered(probeThenInit, botTokenRefusedAtStart))) return false;
  const { connect } = options;
  if (connect !== undefined && !(await tryUntilAnswered(connect, appTokenRefusedAtStart))) {
    return false;
  }
  if (signal.aborted) return false;
  logger.info({ after: warned ? "waiting" : "first try" }, "connected to Slack");
  return true;
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * The app's start-up connection: a quiet `auth.test` of its own (one try at a time, outside
 * the rate budget, no log line of the client's), Bolt's init, and in Socket Mode the socket.
 */
export function slackStartUp(o: {
  config: Pick<Config, "slack">;
  logger: Logger;
  bolt: Pick<BoltApp, "init" | "start">;
  backoff?: Partial<ReconnectBackoff> | undefined;
}): (signal: AbortSignal) => Promise<boolean> {
  const probe = slackAuthProbe({
    botToken: o.config.slack.botToken,
    apiUrl: o.config.slack.apiUrl,
    timeoutMs: 10_000,
    logger: toSlackLogger(quiet(o.logger.child({ name: "slack-start" }))),
  });
  const socketMode = o.config.slack.appToken !== undefined;
  return (signal) =>
    connectSlack({
      probe,
      init: () => o.bolt.init(),
      connect: socketMode ? () => o.bolt.start() : undefined,
      logger: o.logger,
      backoff: o.backoff,
      signal,
    });
}
