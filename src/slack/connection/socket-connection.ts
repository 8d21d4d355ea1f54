import type { Logger } from "../../logger.ts";
import { BACKOFFS, type Backoff, backoffDelayMs } from "../../util/backoff.ts";
import { appTokenRefusedNow, troubleOf } from "./slack-troubles.ts";

/** What of Bolt's Socket Mode client (`SocketModeReceiver.client`) the connection uses. */
export interface SocketClient {
  start(): Promise<unknown>;
  disconnect(): Promise<void>;
  on(event: "connected" | "disconnected", listener: () => void): unknown;
}

export type ReconnectBackoff = Backoff;

export interface SocketConnectionOptions {
  client: SocketClient;
  logger: Logger;
  backoff?: Partial<ReconnectBackoff>;
  stopTimeoutMs?: number;
  onReconnected?: () => void;
}

export interface SocketConnection {
  readonly connected: boolean;
  /** The first connection, one try: the start-up tries again (connect-slack.ts). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Keeps Bolt's Socket Mode client connected: the client's own reconnection gives up for good
 * when `apps.connections.open` fails, leaving a deaf bot. Reconnects at once after a drop
 * (Slack asks "as quickly as possible"), then with a doubling wait, for as long as it runs.
 */
export function createSocketConnection(options: SocketConnectionOptions): SocketConnection {
  const { client, logger } = options;
  const backoff: ReconnectBackoff = { ...BACKOFFS.slackReconnect, ...options.backoff };
  let state: "idle" | "connected" | "reconnecting" | "stopped" = "idle";
  let wake: (() => void) | undefined;
  let reconnecting: Promise<void> | undefined;
  // A function, not a comparison, so TypeScript does not narrow `state` across awaits.
  const stopped = () => state === "stopped";

  client.on("connected", () => {
    if (!stopped()) state = "connected";
  });
  // Also said for a failed attempt: only a dropped connection starts the loop.
  client.on("disconnected", () => {
    if (state !== "connected") return;
    state = "reconnecting";
    logger.warn("the Socket Mode connection closed; reconnecting");
    reconnecting = reconnect();
  });

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  let toldRefused = false;
  const reconnect = async (): Promise<void> => {
    for (let attempt = 1; state === "reconnecting"; attempt += 1) {
      await pause(attempt === 1 ? 0 : backoffDelayMs(backoff, attempt - 2));
      if (state !== "reconnecting") return;
      try {
        await client.start();
        if (stopped()) return void (await client.disconnect());
        logger.info({ attempt }, "the Socket Mode connection is back");
        toldRefused = false;
        options.onReconnected?.();
        return;
      } catch (error) {
        const trouble = troubleOf(error);
        if (trouble.kind === "unreachable") {
          logger.warn({ err: error, attempt }, "a Socket Mode reconnection attempt failed");
        } else if (!toldRefused) {
          toldRefused = true;
          logger.error({ slackError: trouble.code }, appTokenRefusedNow(trouble.code));
        }
      }
    }
  };

  return {
    get connected() {
      return state === "connected";
    },
    async start() {
      await client.start();
    },
    async stop() {
      state = "stopped";
      wake?.();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), options.stopTimeoutMs ?? 5_000);
      });
      const closed = async () => {
        await client.disconnect();
        await reconnecting;
      };
      const outcome = await Promise.race([closed(), timeout]);
      clearTimeout(timer);
      if (outcome === "timeout") logger.warn("the Socket Mode connection did not close in time");
    },
  };
}
