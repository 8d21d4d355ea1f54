import { createClient } from "@keyv/redis";
import { BACKOFFS, backoffDelayMs } from "../util/backoff.ts";
import { withTimeout } from "../util/with-timeout.ts";
import { DEFAULT_REDIS_TIMEOUT_MS, type RedisClient } from "./redis-client.ts";
import { RedisStore } from "./redis-store.ts";
import type { OpenStoreOptions } from "./store.ts";

/** `connectTimeoutMs`: a connection attempt gives up after this long (default 3 s). */
type RedisStoreOptions = OpenStoreOptions & { keyPrefix: string; connectTimeoutMs?: number };

/** Resolves once connected or after a first failed attempt: a Redis down blocks no start. */
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
      socket: {
        connectTimeout,
        reconnectStrategy: (retries: number) => backoffDelayMs(BACKOFFS.redisReconnect, retries),
      },
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
