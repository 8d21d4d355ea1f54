import { ErrorCode, type Logger as SlackLogger, WebClient } from "@slack/web-api";
import type { Config } from "../../config.ts";
import { type Logger, quiet, toSlackLogger } from "../../logger.ts";
import { StartupError } from "../../startup-error.ts";
import { BACKOFFS, backoffDelayMs, retry } from "../../util/backoff.ts";
import { optional } from "../../util/optional.ts";
import type { BoltApp } from "./create-bolt-app.ts";
import { appTokenRefusedAtStart, botTokenRefusedAtStart, troubleOf } from "./slack-troubles.ts";
import type { ReconnectBackoff } from "./socket-connection.ts";

/** What connecting to Slack at start-up runs, in order. */
export interface ConnectSlackOptions {
  /** A quiet `auth.test` (no retries, no log lines), before Bolt's own. */
  probe: () => Promise<unknown>;
  init: () => Promise<void>;
  /** Socket Mode: opens the socket with the app-level token. */
  connect?: (() => Promise<void>) | undefined;
  logger: Logger;
  backoff?: Partial<ReconnectBackoff> | undefined;
  signal: AbortSignal;
}

/**
 * Connects at start-up for as long as it takes: a refused token stops the start naming the
 * variable; Slack out of reach is tried again, warned once. False when stopped first.
 */
export async function connectSlack(options: ConnectSlackOptions): Promise<boolean> {
  const { logger, signal } = options;
  const backoff: ReconnectBackoff = { ...BACKOFFS.slackReconnect, ...options.backoff };
  let warned = false;
  const stopped = new Error("stopped");
  const tryUntilAnswered = (
    attempt: () => Promise<unknown>,
    refused: (code: string) => string,
  ): Promise<boolean> =>
    retry(
      async () => {
        if (signal.aborted) throw stopped;
        await attempt();
        return true;
      },
      (error, failures) => {
        if (error === stopped) return undefined;
        const trouble = troubleOf(error);
        if (trouble.kind === "refused") throw new StartupError(refused(trouble.code));
        if (!warned) {
          warned = true;
          logger.warn(
            { reason: trouble.reason },
            `Slack cannot be reached (${trouble.reason}): trying again, at least every ${Math.round(backoff.maxMs / 1000)} s; /readyz answers 503 meanwhile`,
          );
        }
        return backoffDelayMs(backoff, failures);
      },
      (ms) => pause(ms, signal),
    ).catch((error: unknown) => {
      if (error === stopped) return false;
      throw error;
    });
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

/** A wait that stopping ends early: the next try sees the signal. */
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

/** The app's start-up connection: the probe, Bolt's init, and in Socket Mode the socket. */
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

export interface SlackAuthProbeOptions {
  /** Undefined with installs by OAuth. */
  botToken: string | undefined;
  apiUrl: string;
  timeoutMs: number;
  logger?: SlackLogger;
}

/**
 * Asks `auth.test` once, outside the rate budget, whether Slack takes the bot token (a 429 says it
 * is up); with installs by OAuth `api.test`, so one revoked token cannot make the bot unready.
 */
export function slackAuthProbe(options: SlackAuthProbeOptions): () => Promise<void> {
  const client = new WebClient(options.botToken, {
    slackApiUrl: options.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs,
    ...optional("logger", options.logger),
  });
  return async () => {
    try {
      if (options.botToken === undefined) await client.api.test();
      else await client.auth.test();
    } catch (error) {
      if ((error as { code?: unknown }).code === ErrorCode.RateLimitedError) return;
      throw error;
    }
  };
}
