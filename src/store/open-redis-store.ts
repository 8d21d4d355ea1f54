import { createClient } from "@keyv/redis";
import type { Logger } from "pino";
import { BACKOFFS, backoffDelayMs } from "../util/backoff.ts";
import { DEFAULT_REDIS_TIMEOUT_MS, type RedisClient, RedisStore } from "./redis-store.ts";
import { withTimeout } from "./with-timeout.ts";

export interface RedisStoreOptions {
  keyPrefix: string;
  logger?: Logger;
  /**
   * The deadline of one store call, sent or not (default 2 s): past it the call rejects.
   * Kept by the store's own timer — node-redis's command timeout only covers a command not
   * yet written to the socket (see `RedisStore`).
   */
  timeoutMs?: number;
  /** A connection attempt gives up after this long (default 3 s). */
  connectTimeoutMs?: number;
}

/**
 * Delay before the next reconnection attempt: 100 ms doubling to 1 s, plus jitter so that
 * replicas do not reconnect in lockstep. Never gives up: Redis coming back must heal the
 * app without a restart. The cap stays low so a `close()` during an outage exits soon.
 */
function reconnectDelay(retries: number): number {
  return backoffDelayMs(BACKOFFS.redisReconnect, retries);
}

/**
 * Connects to Redis at `url` (redis:// or rediss://). Resolves once connected or after the
 * first failed attempt — an unreachable Redis does not block start-up: commands reject and
 * `ping()` answers false until it is back.
 */
export async function openRedisStore(url: string, options: RedisStoreOptions): Promise<RedisStore> {
  const { logger } = options;
  const connectTimeout = options.connectTimeoutMs ?? 3000;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  let client: RedisClient;
  try {
    client = createClient({
      url,
      disableOfflineQueue: true,
      // Drops a command still waiting to be written; one written is the store's deadline's.
      commandOptions: { timeout: timeoutMs },
      socket: { connectTimeout, reconnectStrategy: reconnectDelay },
    });
  } catch {
    // Not the parser's message: it may quote the URL, password included.
    throw new Error(
      "STORE_URL is not a valid Redis URL: expected redis://[user:password@]host[:port][/db] or rediss://…",
    );
  }

  // Log changes of state only: while Redis is down the client reports every failed attempt.
  let reachable: boolean | undefined;
  client.on("error", (error: Error) => {
    if (reachable !== false) logger?.warn({ err: error }, "store: Redis unreachable; retrying");
    reachable = false;
  });
  client.on("ready", () => {
    if (reachable === false) logger?.info("store: Redis reachable again");
    reachable = true;
  });

  const firstAttempt = new Promise<void>((resolve) => {
    const settle = () => {
      client.off("ready", settle);
      client.off("error", settle);
      resolve();
    };
    client.once("ready", settle);
    client.once("error", settle);
  });
  // Never rejects with a retrying strategy; it resolves on connect (or when closed).
  client.connect().catch(() => {});
  await withTimeout(firstAttempt, connectTimeout + 500, "").catch(() => {});
  return new RedisStore(client, { keyPrefix: options.keyPrefix, timeoutMs });
}
