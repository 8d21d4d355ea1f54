import { randomUUID } from "node:crypto";
import type { createClient } from "@keyv/redis";
import type { RedisProcessOptions } from "./redis-process.ts";
import { RELEASE_LEASE, RENEW_LEASE } from "./redis-scripts.ts";
import { checkTtl, type EpochCheck, StoreError } from "./store.ts";
import { withTimeout } from "./with-timeout.ts";

export type RedisClient = ReturnType<typeof createClient>;

export const DEFAULT_REDIS_TIMEOUT_MS = 2000;

/** Options of `RedisStore`: who this process is (see `RedisProcess`), a call's deadline. */
export type RedisStoreInit = RedisProcessOptions & { timeoutMs?: number };

/**
 * Runs one Redis call within the store's deadline. node-redis's own timeout stops counting
 * once a command is written, so a Redis that accepts connections but never answers would
 * otherwise hold every caller; a call past its deadline may still take effect later.
 */
export type RunCall = <T>(
  command: string,
  call: () => Promise<T>,
  timeoutMs?: number,
) => Promise<T>;

/**
 * The store's epoch, a key without TTL (no `volatile-*` policy evicts it): a Redis that comes
 * back empty has lost it, and `check` says `reset` once.
 */
export class RedisEpoch {
  readonly #client: RedisClient;
  readonly #key: string;
  readonly #run: RunCall;
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

/** Closes the client, bounded: a Redis that stops answering must not hold up shutdown. */
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

/** Leases on Redis: `SET NX PX`, renewed and released by holder-checked scripts. */
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
