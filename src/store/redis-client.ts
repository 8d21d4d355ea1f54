import { randomUUID } from "node:crypto";
import type { createClient } from "@keyv/redis";
import type { RedisProcessOptions } from "./redis-process.ts";
import { RELEASE_LEASE, RENEW_LEASE } from "./redis-scripts.ts";
import { checkTtl, type EpochCheck, StoreError } from "./store.ts";
import { withTimeout } from "./with-timeout.ts";

/*
 * What the Redis store does on the node-redis client besides plain values (which go
 * through Keyv): the call deadline's contract, the epoch, leases, key scans, and closing.
 */

export type RedisClient = ReturnType<typeof createClient>;

/** The default deadline of one store call. */
export const DEFAULT_REDIS_TIMEOUT_MS = 2000;

/**
 * Options of `RedisStore`: the key prefix, who this process is (see `RedisProcess`), and
 * the deadline of one call (default {@link DEFAULT_REDIS_TIMEOUT_MS}).
 */
export type RedisStoreInit = RedisProcessOptions & { timeoutMs?: number };

/**
 * Runs one Redis call within the store's deadline (`RedisStore`'s `#run`).
 *
 * Every call has a deadline (`timeoutMs`), kept by a timer of its own around the call:
 * node-redis's per-command timeout stops counting once a command is written to the socket,
 * so a Redis that accepts connections but does not answer (paused, swapping, a hung host)
 * would otherwise hold every caller — and every Slack request behind it — forever. While
 * Redis is unreachable the client rejects at once (`disableOfflineQueue`: no queue waiting
 * for a reconnect that may never come) and reconnects in the background.
 *
 * A call past its deadline stays on the connection: measured against a paused
 * redis-server, the same socket answers every queued command, in order, the moment Redis
 * resumes, so no fresh connection is needed — but a write that timed out may still take
 * effect then. Meanwhile new calls are refused unsent (fail fast; fewer late writes); a
 * connection that breaks rejects what it held and the client reconnects.
 */
export type RunCall = <T>(
  command: string,
  call: () => Promise<T>,
  timeoutMs?: number,
) => Promise<T>;

/**
 * The store's epoch: an id under `<prefix>:epoch`, without a TTL — Redis evicts no such key
 * under the `volatile-*` policies (an `allkeys-*` policy could, and would be reported as a
 * loss). A Redis that comes back empty has lost it: `check` says "reset" once, and writes
 * a new one (or adopts the one another replica just wrote).
 */
export class RedisEpoch {
  readonly #client: RedisClient;
  readonly #key: string;
  readonly #run: RunCall;
  /** The epoch this process last saw in the store. */
  #seen: string | undefined;

  constructor(client: RedisClient, key: string, run: RunCall) {
    this.#client = client;
    this.#key = key;
    this.#run = run;
  }

  async check(): Promise<EpochCheck> {
    const key = this.#key;
    const seen = this.#seen;
    if (seen !== undefined) {
      const current = await this.#run("GET epoch", () => this.#client.get(key));
      if (current === seen) return "same";
    }
    // First check, or the data is gone: write a new epoch unless another replica just did.
    const mine = randomUUID();
    const set = await this.#run("SET NX epoch", () =>
      this.#client.set(key, mine, { condition: "NX" }),
    );
    const adopted = set === "OK" ? mine : await this.#run("GET epoch", () => this.#client.get(key));
    if (typeof adopted !== "string") throw new StoreError("Redis epoch vanished as it was read");
    this.#seen = adopted;
    return seen === undefined ? "same" : "reset";
  }
}

/**
 * Closes the client. `close()` lets sent commands get their replies; a Redis that stops
 * answering midway must not hold up shutdown, hence the bound and the forced fallback.
 */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  if (!client.isOpen) return;
  if (!client.isReady) {
    // Reconnecting: nothing can be flushed, and `close()` would wait for replies forever.
    client.destroy();
    return;
  }
  await withTimeout(client.close(), 2000, "Redis close timed out").catch(() => {
    if (client.isOpen) client.destroy();
  });
}

/**
 * Leases on Redis (`SET NX PX`, renewed and released by holder-checked scripts), their
 * tokens this process's own (`RedisProcess.newToken`).
 */
export class RedisLeases {
  readonly #client: RedisClient;
  readonly #prefix: string;
  readonly #run: RunCall;
  readonly #tokens: { newToken(): string };

  constructor(client: RedisClient, prefix: string, run: RunCall, tokens: { newToken(): string }) {
    this.#client = client;
    this.#prefix = prefix;
    this.#run = run;
    this.#tokens = tokens;
  }

  /** The Redis key of the lease `key` (or, given a prefix, of the leases under it). */
  keyOf(key: string): string {
    return `${this.#prefix}${key}`;
  }

  async acquire(key: string, ttlMs: number): Promise<string | undefined> {
    const ttl = checkTtl(ttlMs);
    const token = this.#tokens.newToken();
    const reply = await this.#run("SET NX", () =>
      this.#client.set(this.keyOf(key), token, {
        condition: "NX",
        expiration: { type: "PX", value: ttl },
      }),
    );
    return reply === "OK" ? token : undefined;
  }

  async renew(key: string, token: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    const reply = await this.#run("EVAL renew", () =>
      this.#client.eval(RENEW_LEASE, { keys: [this.keyOf(key)], arguments: [token, String(ttl)] }),
    );
    return reply === 1;
  }

  async release(key: string, token: string): Promise<void> {
    await this.#run("EVAL release", () =>
      this.#client.eval(RELEASE_LEASE, { keys: [this.keyOf(key)], arguments: [token] }),
    );
  }
}

/** Every key that starts with `prefix`: SCAN steps, each within its own deadline. */
export async function scanKeys(client: RedisClient, run: RunCall, prefix: string) {
  const match = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
  const keys: string[] = [];
  let cursor = "0";
  do {
    const reply = await run("SCAN", () => client.scan(cursor, { MATCH: match, COUNT: 1000 }));
    cursor = String(reply.cursor);
    keys.push(...reply.keys.map(String));
  } while (cursor !== "0");
  return keys;
}
