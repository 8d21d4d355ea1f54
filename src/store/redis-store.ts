import { randomUUID } from "node:crypto";
import KeyvRedis from "@keyv/redis";
import type Keyv from "keyv";
import { createJsonKeyv, entryHolds, entryOf } from "./json-keyv.ts";
import { DEFAULT_REDIS_TIMEOUT_MS, RedisCalls, type RedisClient } from "./redis-client.ts";
import { RedisProcess, type RedisProcessOptions } from "./redis-process.ts";
import { RedisQueue } from "./redis-queue.ts";
import { COMPARE_AND_SET, PUSH_INDEX } from "./redis-scripts.ts";
import {
  checkTtl,
  type EpochCheck,
  INDEX_LIMIT,
  type Namespace,
  type Store,
  StoreClosedError,
  StoreError,
  type StoreKeys,
  storeKeys,
} from "./store.ts";

/** Options of `RedisStore`: who this process is (see `RedisProcess`), a call's deadline. */
export type RedisStoreInit = RedisProcessOptions & { timeoutMs?: number };

/** `ping()` answers within this, whatever the deadline of other calls. */
const PING_TIMEOUT_MS = 1000;

/**
 * The store shared by replicas: values through Keyv (@keyv/redis), the atomic parts (claims,
 * leases, indexes) as commands and scripts on the same node-redis client.
 */
export class RedisStore extends RedisQueue implements Store {
  readonly kind = "redis";
  readonly #client: RedisClient;
  readonly #keyv: Keyv;
  readonly #keys: StoreKeys;
  readonly #blobTimeoutMs: number;
  /** The epoch this process last saw (see `checkEpoch`). */
  #epoch: string | undefined;

  constructor(client: RedisClient, options: RedisStoreInit) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    // Before the process starts beating: its calls keep the deadline too.
    const calls = new RedisCalls(client, timeoutMs);
    super(calls, new RedisProcess(calls, options), options.keyPrefix);
    this.#client = client;
    this.#keys = storeKeys(options.keyPrefix);
    this.#blobTimeoutMs = 10 * timeoutMs;
    this.process.start();
    // The adapter's own `throwOnErrors` too: by default it answers `undefined` on failure.
    this.#keyv = createJsonKeyv(
      new KeyvRedis(client, { throwOnErrors: true, throwOnConnectError: true }),
    );
  }

  now(): number {
    return this.process.clock.now();
  }

  async get<T>(ns: Namespace, key: string): Promise<T | undefined> {
    const full = this.#keys.value(ns, key);
    return this.calls.run("GET", () => this.#keyv.get<T>(full), this.#timeoutOf(ns));
  }

  async set<T>(ns: Namespace, key: string, value: T, ttlMs?: number): Promise<void> {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    const full = this.#keys.value(ns, key);
    await this.calls.run("SET", () => this.#keyv.set(full, value, ttl), this.#timeoutOf(ns));
  }

  /** Compared here as JSON; a script writes only while the key still holds the entry read. */
  async compareAndSet<T>(ns: Namespace, key: string, expected: T, next: T, ttlMs?: number) {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    const full = this.#keys.value(ns, key);
    const read = await this.calls.run("GET", () => this.#client.get(full));
    if (read === null || !entryHolds(read, JSON.stringify(expected), Date.now())) return false;
    const entry = entryOf(next, ttl, Date.now()).text;
    const args = [read, entry, `${ttl ?? ""}`];
    return (await this.calls.eval("compare-and-set", COMPARE_AND_SET, [full], args)) === 1;
  }

  /** Blobs (a transcript: megabytes) get ten deadlines; only the runner waits for them. */
  #timeoutOf(ns: Namespace): number | undefined {
    return ns === "blobs" ? this.#blobTimeoutMs : undefined;
  }

  async touch(ns: Namespace, key: string, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs);
    await this.calls.run("PEXPIRE", () => this.#client.pExpire(this.#keys.value(ns, key), ttl));
  }

  async delete(ns: Namespace, key: string): Promise<void> {
    await this.calls.run("DEL", () => this.#keyv.delete(this.#keys.value(ns, key)));
  }

  /** One SCAN over the key space, each step within its own deadline. */
  async listKeys(ns: Namespace, prefix: string): Promise<string[]> {
    const start = this.#keys.value(ns, "").length;
    const keys = await this.calls.scan(this.#keys.value(ns, prefix));
    return keys.map((key) => key.slice(start));
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    return this.#setOnce(this.#keys.claim(key), ttlMs);
  }

  claimBriefly(key: string, ttlMs: number): Promise<boolean> {
    return this.#setOnce(`${this.prefix}:brief:${key}`, ttlMs);
  }

  async #setOnce(fullKey: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    const reply = await this.calls.run("SET NX", () =>
      this.#client.set(fullKey, "1", { condition: "NX", expiration: { type: "PX", value: ttl } }),
    );
    return reply === "OK";
  }

  async releaseClaim(key: string): Promise<void> {
    await this.calls.run("DEL", () => this.#client.del(this.#keys.claim(key)));
  }

  async addMember(set: string, member: string): Promise<void> {
    await this.calls.run("SADD", () => this.#client.sAdd(this.#keys.set(set), member));
  }

  async listMembers(set: string): Promise<string[]> {
    return this.calls.run("SMEMBERS", () => this.#client.sMembers(this.#keys.set(set)));
  }

  async removeMember(set: string, member: string): Promise<void> {
    await this.calls.run("SREM", () => this.#client.sRem(this.#keys.set(set), member));
  }

  async deleteSet(set: string): Promise<void> {
    await this.calls.run("DEL", () => this.#client.del(this.#keys.set(set)));
  }

  async pushIndex(index: string, jobId: string): Promise<void> {
    const args = [jobId, String(INDEX_LIMIT)];
    await this.calls.eval("push", PUSH_INDEX, [this.#keys.index(index)], args);
  }

  async listIndex(index: string): Promise<string[]> {
    return this.calls.run("LRANGE", () => this.#client.lRange(this.#keys.index(index), 0, -1));
  }

  async deleteIndex(index: string): Promise<void> {
    await this.calls.run("DEL", () => this.#client.del(this.#keys.index(index)));
  }

  /** Nothing to do: Redis's own persistence (RDB, AOF) is its operator's. */
  async scrub(): Promise<void> {
    if (this.calls.closed) throw new StoreClosedError();
  }

  async ping(): Promise<boolean> {
    // Offline: answer at once rather than wait for a PING that cannot be sent.
    if (this.calls.closed || !this.#client.isReady) return false;
    try {
      const reply = await this.calls.run("PING", () => this.#client.ping(), PING_TIMEOUT_MS);
      return reply === "PONG";
    } catch {
      return false;
    }
  }

  /**
   * The epoch is a key without TTL (no `volatile-*` policy evicts it): a Redis that comes back
   * empty has lost it, and this says `reset` once.
   */
  async checkEpoch(): Promise<EpochCheck> {
    const key = `${this.prefix}:epoch`;
    const seen = this.#epoch;
    if (seen !== undefined) {
      const current = await this.calls.run("GET epoch", () => this.#client.get(key));
      if (current === seen) return "same";
    }
    // First check, or the data is gone: write a new epoch unless another replica just did.
    const mine = randomUUID();
    const set = await this.calls.run("SET NX epoch", () =>
      this.#client.set(key, mine, { condition: "NX" }),
    );
    const adopted =
      set === "OK" ? mine : await this.calls.run("GET epoch", () => this.#client.get(key));
    if (typeof adopted !== "string") throw new StoreError("Redis epoch vanished as it was read");
    this.#epoch = adopted;
    return seen === undefined ? "same" : "reset";
  }

  async close(): Promise<void> {
    if (this.calls.closed) return;
    this.process.stop();
    await this.calls.close();
  }
}
