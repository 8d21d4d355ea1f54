import KeyvRedis from "@keyv/redis";
import type Keyv from "keyv";
import { CallDeadline } from "./call-deadline.ts";
import { createJsonKeyv, entryHolds, entryOf } from "./json-keyv.ts";
import {
  closeRedisClient,
  DEFAULT_REDIS_TIMEOUT_MS,
  type RedisClient,
  RedisEpoch,
  RedisLeases,
  type RedisStoreInit,
  type RunCall,
  scanKeys,
} from "./redis-client.ts";
import { RedisProcess } from "./redis-process.ts";
import {
  CLAIM_DUE,
  COMPARE_AND_SET,
  PUSH_INDEX,
  parseClaimDue,
  REMOVE_ACTIVE,
  SET_ACTIVE_STAGE,
  SPREAD_OVERDUE,
} from "./redis-scripts.ts";
import {
  checkTtl,
  type EpochCheck,
  INDEX_LIMIT,
  type Namespace,
  type Store,
  StoreClosedError,
} from "./store.ts";

export { DEFAULT_REDIS_TIMEOUT_MS, type RedisClient, type RedisStoreInit };

/** `ping()` answers within this, whatever the deadline of other calls. */
const PING_TIMEOUT_MS = 1000;

/**
 * The store shared by replicas: values through Keyv (@keyv/redis), the atomic parts (claims,
 * leases, indexes) as commands and scripts on the same node-redis client.
 */
export class RedisStore implements Store {
  readonly kind = "redis";
  readonly #client: RedisClient;
  readonly #keyv: Keyv;
  readonly #prefix: string;
  readonly #deadline: CallDeadline;
  readonly #blobTimeoutMs: number;
  readonly #process: RedisProcess;
  readonly #epoch: RedisEpoch;
  readonly #leases: RedisLeases;
  readonly #call: RunCall = (command, call, timeoutMs) => this.#run(command, call, timeoutMs);
  #closed = false;

  constructor(client: RedisClient, options: RedisStoreInit) {
    this.#client = client;
    this.#prefix = options.keyPrefix;
    const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    // Before the process starts beating: its calls go through `#run` too.
    this.#deadline = new CallDeadline("Redis", timeoutMs);
    this.#blobTimeoutMs = 10 * timeoutMs;
    this.#process = new RedisProcess(
      (command, script, keys, args) =>
        this.#run(command, () => this.#client.eval(script, { keys, arguments: args })),
      options,
    );
    this.#process.start();
    this.#epoch = new RedisEpoch(client, `${this.#prefix}:epoch`, this.#call);
    this.#leases = new RedisLeases(client, `${this.#prefix}:lease:`, this.#call, this.#process);
    // The adapter's own `throwOnErrors` too: by default it answers `undefined` on failure.
    this.#keyv = createJsonKeyv(
      new KeyvRedis(client, { throwOnErrors: true, throwOnConnectError: true }),
    );
  }

  now(): number {
    return this.#process.clock.now();
  }

  async get<T>(ns: Namespace, key: string): Promise<T | undefined> {
    return this.#run("GET", () => this.#keyv.get<T>(this.#key(ns, key)), this.#timeoutOf(ns));
  }

  async set<T>(ns: Namespace, key: string, value: T, ttlMs?: number): Promise<void> {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    const timeout = this.#timeoutOf(ns);
    await this.#run("SET", () => this.#keyv.set(this.#key(ns, key), value, ttl), timeout);
  }

  /** Compared here as JSON; a script writes only while the key still holds the entry read. */
  async compareAndSet<T>(ns: Namespace, key: string, expected: T, next: T, ttlMs?: number) {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    const full = this.#key(ns, key);
    const read = await this.#run("GET", () => this.#client.get(full));
    if (read === null || !entryHolds(read, JSON.stringify(expected), Date.now())) return false;
    const entry = entryOf(next, ttl, Date.now()).text;
    const written = await this.#run("EVAL compare-and-set", () =>
      this.#client.eval(COMPARE_AND_SET, {
        keys: [full],
        arguments: [read, entry, `${ttl ?? ""}`],
      }),
    );
    return written === 1;
  }

  /** Blobs (a transcript: megabytes) get ten deadlines; only the runner waits for them. */
  #timeoutOf(ns: Namespace): number | undefined {
    return ns === "blobs" ? this.#blobTimeoutMs : undefined;
  }

  async touch(ns: Namespace, key: string, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs);
    await this.#run("PEXPIRE", () => this.#client.pExpire(this.#key(ns, key), ttl));
  }

  async delete(ns: Namespace, key: string): Promise<void> {
    await this.#run("DEL", () => this.#keyv.delete(this.#key(ns, key)));
  }

  /** One SCAN over the key space, each step within its own deadline. */
  async listKeys(ns: Namespace, prefix: string): Promise<string[]> {
    const start = this.#key(ns, "").length;
    const keys = await scanKeys(this.#client, this.#call, this.#key(ns, prefix));
    return keys.map((key) => key.slice(start));
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    return this.#setOnce(`${this.#prefix}:claim:${key}`, ttlMs);
  }

  claimBriefly(key: string, ttlMs: number): Promise<boolean> {
    return this.#setOnce(`${this.#prefix}:brief:${key}`, ttlMs);
  }

  async #setOnce(fullKey: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    const reply = await this.#run("SET NX", () =>
      this.#client.set(fullKey, "1", { condition: "NX", expiration: { type: "PX", value: ttl } }),
    );
    return reply === "OK";
  }

  async releaseClaim(key: string): Promise<void> {
    await this.#run("DEL", () => this.#client.del(`${this.#prefix}:claim:${key}`));
  }

  acquireLease(key: string, ttlMs: number): Promise<string | undefined> {
    return this.#leases.acquire(key, ttlMs);
  }

  renewLease(key: string, token: string, ttlMs: number): Promise<boolean> {
    return this.#leases.renew(key, token, ttlMs);
  }

  releaseLease(key: string, token: string): Promise<void> {
    return this.#leases.release(key, token);
  }

  async addActive(jobId: string, stage: string): Promise<void> {
    // Key names built in the script stay under this store's prefix; one Redis node only.
    await this.#run("EVAL active", () =>
      this.#client.eval(SET_ACTIVE_STAGE, {
        keys: [`${this.#prefix}:active`, `${this.#prefix}:stages`],
        arguments: [jobId, `${this.#prefix}:stage:`, stage],
      }),
    );
  }

  async removeActive(jobId: string): Promise<void> {
    await this.#run("EVAL inactive", () =>
      this.#client.eval(REMOVE_ACTIVE, {
        keys: [`${this.#prefix}:active`, `${this.#prefix}:stages`],
        arguments: [jobId, `${this.#prefix}:stage:`],
      }),
    );
  }

  async listActive(): Promise<string[]> {
    return this.#run("SMEMBERS", () => this.#client.sMembers(`${this.#prefix}:active`));
  }

  /** One SCARD per stage: the cost grows with the stages, not with the jobs. */
  async countActive(): Promise<Record<string, number>> {
    const stages = await this.#run("SMEMBERS", () =>
      this.#client.sMembers(`${this.#prefix}:stages`),
    );
    const counts = await Promise.all(
      stages.map((stage) =>
        this.#run("SCARD", () => this.#client.sCard(`${this.#prefix}:stage:${stage}`)),
      ),
    );
    return Object.fromEntries(stages.map((stage, i) => [stage, counts[i] ?? 0]));
  }

  async schedule(jobId: string, time: number): Promise<void> {
    const at = await this.#process.onRedisClock(time);
    await this.#run("ZADD", () => this.#client.zAdd(this.#dueKey(), { score: at, value: jobId }));
  }

  async unschedule(jobId: string): Promise<void> {
    await this.#run("ZREM", () => this.#client.zRem(this.#dueKey(), jobId));
  }

  /** One script; a process's first claims free the leases its replica's dead processes left. */
  async claimDue(time: number, limit: number, leasePrefix: string, leaseTtlMs: number) {
    const ttl = checkTtl(leaseTtlMs);
    const now = await this.#process.onRedisClock(time);
    const [dueKey, leaseKeyPrefix] = [this.#dueKey(), this.#leases.keyOf(leasePrefix)];
    await this.#process.reclaimOwnLeases({ now, dueKey, leaseKeyPrefix, ttlMs: ttl });
    const reply = (await this.#run("EVAL claim-due", () =>
      this.#client.eval(CLAIM_DUE, {
        keys: [this.#dueKey()],
        arguments: [
          String(Math.floor(now)),
          String(Math.max(0, Math.floor(limit))),
          String(ttl),
          this.#leases.keyOf(leasePrefix),
          `${this.#process.newToken()}:`,
        ],
      }),
    )) as string[];
    return parseClaimDue(reply);
  }

  /** One script, under a lease kept for the window: of replicas starting together, one spreads. */
  async spreadOverdue(time: number, windowMs: number, stages: readonly string[]) {
    const window = checkTtl(windowMs);
    const now = await this.#process.onRedisClock(time);
    const reply = await this.#run("EVAL spread-overdue", () =>
      this.#client.eval(SPREAD_OVERDUE, {
        keys: [this.#dueKey(), `${this.#prefix}:spread-overdue`],
        arguments: [
          String(Math.floor(now)),
          String(window),
          this.#process.newToken(),
          `${this.#prefix}:stage:`,
          ...stages,
        ],
      }),
    );
    return Math.max(0, Number(reply));
  }

  async addMember(set: string, member: string): Promise<void> {
    await this.#run("SADD", () => this.#client.sAdd(`${this.#prefix}:set:${set}`, member));
  }

  async listMembers(set: string): Promise<string[]> {
    return this.#run("SMEMBERS", () => this.#client.sMembers(`${this.#prefix}:set:${set}`));
  }

  async removeMember(set: string, member: string): Promise<void> {
    await this.#run("SREM", () => this.#client.sRem(`${this.#prefix}:set:${set}`, member));
  }

  async deleteSet(set: string): Promise<void> {
    await this.#run("DEL", () => this.#client.del(`${this.#prefix}:set:${set}`));
  }

  async pushIndex(index: string, jobId: string): Promise<void> {
    await this.#run("EVAL push", () =>
      this.#client.eval(PUSH_INDEX, {
        keys: [this.#indexKey(index)],
        arguments: [jobId, String(INDEX_LIMIT)],
      }),
    );
  }

  async listIndex(index: string): Promise<string[]> {
    return this.#run("LRANGE", () => this.#client.lRange(this.#indexKey(index), 0, -1));
  }
  async deleteIndex(index: string): Promise<void> {
    await this.#run("DEL", () => this.#client.del(this.#indexKey(index)));
  }

  /** Nothing to do: Redis's own persistence (RDB, AOF) is its operator's. */
  async scrub(): Promise<void> {
    if (this.#closed) throw new StoreClosedError();
  }

  async ping(): Promise<boolean> {
    // Offline: answer at once rather than wait for a PING that cannot be sent.
    if (this.#closed || !this.#client.isReady) return false;
    try {
      const reply = await this.#run("PING", () => this.#client.ping(), PING_TIMEOUT_MS);
      return reply === "PONG";
    } catch {
      return false;
    }
  }

  checkEpoch(): Promise<EpochCheck> {
    return this.#epoch.check();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#process.stop();
    await closeRedisClient(this.#client);
  }

  #key(ns: Namespace, key: string): string {
    return `${this.#prefix}:${ns}:${key}`;
  }

  #dueKey(): string {
    return `${this.#prefix}:due`;
  }

  #indexKey(index: string): string {
    return `${this.#prefix}:index:${index}`;
  }

  async #run<T>(command: string, call: () => Promise<T>, timeoutMs?: number): Promise<T> {
    if (this.#closed) throw new StoreClosedError();
    return this.#deadline.run(command, call, timeoutMs);
  }
}
