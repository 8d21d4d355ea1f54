import type { Logger } from "../logger.ts";
import { BACKOFFS, type Backoff, backoffDelayMs } from "../util/backoff.ts";
import { appTokenRefusedNow, troubleOf } from "./slack-troubles.ts";

/** What of Bolt's Socket Mode client (`SocketModeReceiver.client`) the connection uses. */
export interface SocketClient {
  /** Asks `apps.connections.open` for a URL, connects, resolves on Slack's `hello`. */
  start(): Promise<unknown>;
  /** Closes the WebSocket (close handshake) and resolves once it is closed. */
  disconnect(): Promise<void>;
  on(event: "connected" | "disconnected", listener: () => void): unknown;
}

/**
 * Waits between reconnection attempts: none before the first, then from `baseMs` (default
 * 1 s) doubling to `maxMs` (default 30 s).
 */
export type ReconnectBackoff = Backoff;

export interface SocketConnectionOptions {
  client: SocketClient;
  logger: Logger;
  backoff?: Partial<ReconnectBackoff>;
  /** How long `stop()` waits for the close handshake; default 5 s. */
  stopTimeoutMs?: number;
  /** Told each time the connection is back after it was lost. */
  onReconnected?: () => void;
}

/** The Socket Mode connection, kept open: for readiness and metrics. */
export interface SocketConnection {
  /** Connected: Slack said `hello` on the current WebSocket, which is still open. */
  readonly connected: boolean;
  /**
   * The first connection, one try: rejects when it cannot be made (Slack out of reach, a
   * bad app token). The start-up tries again (connect-slack.ts).
   */
  start(): Promise<void>;
  /** Closes the WebSocket cleanly; no reconnection after this. */
  stop(): Promise<void>;
}

/**
 * Keeps Bolt's Socket Mode client connected. Slack refreshes every connection every few
 * hours (`disconnect` with `refresh_requested`) and a network can drop one at any time; the
 * client's own reconnection waits 5 s per consecutive failure and gives up for good when
 * `apps.connections.open` fails after its retries (an unhandled rejection, and a deaf bot).
 * So the client is built with `autoReconnectEnabled: false` and reconnects here: at once
 * after a drop, since Slack asks for a new connection "as quickly as possible", then with a
 * doubling wait, for as long as the process runs.
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
  // The client says "disconnected" for a dropped connection and for a failed attempt; only
  // the first starts the reconnection loop (the loop sees its own failures as rejections).
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

  // An app token Slack refuses (revoked, deleted) is told once, not at every try.
  let toldRefused = false;
  const reconnect = async (): Promise<void> => {
    for (let attempt = 1; state === "reconnecting"; attempt += 1) {
      await pause(attempt === 1 ? 0 : backoffDelayMs(backoff, attempt - 2));
      if (state !== "reconnecting") return;
      try {
        await client.start();
        // Stopped while this attempt was under way: it must not leave a socket open.
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
