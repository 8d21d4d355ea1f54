import type Keyv from "keyv";
import { KeyedMutex } from "../util/keyed-mutex.ts";
import { createJsonKeyv, entryOf, serializeEntry } from "./json-keyv.ts";
import { CallTracker, type KeyvStoreOptions, startSweep } from "./keyv-backend.ts";
import { JsonLists } from "./keyv-lists.ts";
import { LocalQueue } from "./local-queue.ts";
import type { NodeSqliteAdapter } from "./node-sqlite-adapter.ts";
import {
  checkTtl,
  type EpochCheck,
  type Namespace,
  type Store,
  StoreClosedError,
  type StoreKeys,
  storeKeys,
} from "./store.ts";

const HOUR_MS = 60 * 60 * 1000;

/**
 * The one-process store on Keyv over SQLite (a file, or in memory for tests): its
 * read-modify-writes are atomic because this process is the only writer (a mutex per key,
 * leases in a Map).
 */
export class KeyvStore implements Store {
  readonly kind: "sqlite" | "memory";
  readonly #db: NodeSqliteAdapter;
  readonly #keyv: Keyv;
  readonly #keys: StoreKeys;
  readonly #mutex = new KeyedMutex();
  readonly #queue: LocalQueue;
  readonly #lists: JsonLists;
  readonly #calls: CallTracker;
  readonly #sweepTimer: NodeJS.Timeout | undefined;

  constructor(kind: "sqlite" | "memory", db: NodeSqliteAdapter, options: KeyvStoreOptions) {
    this.kind = kind;
    this.#calls = new CallTracker(kind === "sqlite" ? "SQLite" : "The memory store");
    this.#db = db;
    this.#keyv = createJsonKeyv(db);
    this.#keys = storeKeys(options.keyPrefix);
    const { keyPrefix, logger } = options;
    this.#queue = new LocalQueue(db.dueQueue(keyPrefix), db.activeIndex(keyPrefix), options.clock);
    this.#lists = new JsonLists(this.#keyv, this.#mutex, this.#keys);
    const resumed = this.#queue.resumeFromDisk();
    if (resumed > 0) logger?.info({ resumed }, "store: interrupted jobs due now");
    const interval = options.sweepIntervalMs ?? HOUR_MS;
    this.#sweepTimer = startSweep(() => this.sweepExpired(), interval, logger);
  }

  now(): number {
    return this.#queue.clock.now();
  }

  async get<T>(ns: Namespace, key: string): Promise<T | undefined> {
    return this.#calls.run(() => this.#keyv.get<T>(this.#keys.value(ns, key)));
  }

  async set<T>(ns: Namespace, key: string, value: T, ttlMs?: number): Promise<void> {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    return this.#calls.run(async () => {
      await this.#keyv.set(this.#keys.value(ns, key), value, ttl);
    });
  }

  async compareAndSet<T>(ns: Namespace, key: string, expected: T, next: T, ttlMs?: number) {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    const full = this.#keys.value(ns, key);
    return this.#calls.run(async () => {
      const now = Date.now();
      const entry = entryOf(next, ttl, now);
      return this.#db.compareAndSet(full, JSON.stringify(expected), entry.text, entry.expires, now);
    });
  }

  /** Keyv has no expire: the value is written again with the new TTL. */
  async touch(ns: Namespace, key: string, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs);
    const fullKey = this.#keys.value(ns, key);
    return this.#calls.run(() =>
      this.#mutex.run(fullKey, async () => {
        const value = await this.#keyv.get(fullKey);
        if (value !== undefined) await this.#keyv.set(fullKey, value, ttl);
      }),
    );
  }

  async delete(ns: Namespace, key: string): Promise<void> {
    return this.#calls.run(async () => {
      await this.#keyv.delete(this.#keys.value(ns, key));
    });
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    const fullKey = this.#keys.claim(key);
    // In the database, not in a Map: Slack retries an event minutes later, maybe to a new process.
    return this.#calls.run(async () => {
      const now = Date.now();
      return this.#db.claim(fullKey, serializeEntry({ value: 1, expires: now + ttl }), ttl, now);
    });
  }

  async claimBriefly(key: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#calls.run(async () => this.#queue.briefClaims.claim(key, ttl));
  }

  async releaseClaim(key: string): Promise<void> {
    const fullKey = this.#keys.claim(key);
    return this.#calls.run(() =>
      this.#mutex.run(fullKey, async () => {
        await this.#keyv.delete(fullKey);
      }),
    );
  }

  async acquireLease(key: string, ttlMs: number): Promise<string | undefined> {
    const ttl = checkTtl(ttlMs);
    return this.#calls.run(async () => this.#queue.leases.acquire(key, ttl));
  }

  async renewLease(key: string, token: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#calls.run(async () => this.#queue.leases.renew(key, token, ttl));
  }

  async releaseLease(key: string, token: string): Promise<void> {
    return this.#calls.run(async () => this.#queue.leases.release(key, token));
  }

  async addActive(jobId: string, stage: string): Promise<void> {
    return this.#calls.run(async () => this.#queue.active.set(jobId, stage));
  }

  async removeActive(jobId: string): Promise<void> {
    return this.#calls.run(async () => this.#queue.active.delete(jobId));
  }

  async listActive(): Promise<string[]> {
    return this.#calls.run(async () => this.#queue.active.ids());
  }

  async countActive(): Promise<Record<string, number>> {
    return this.#calls.run(async () => this.#queue.active.counts());
  }

  async schedule(jobId: string, at: number): Promise<void> {
    return this.#calls.run(async () => this.#queue.schedule(jobId, at));
  }

  async unschedule(jobId: string): Promise<void> {
    return this.#calls.run(async () => this.#queue.unschedule(jobId));
  }

  async claimDue(now: number, limit: number, leasePrefix: string, leaseTtlMs: number) {
    const ttlMs = checkTtl(leaseTtlMs);
    return this.#calls.run(async () => this.#queue.claimDue({ now, limit, leasePrefix, ttlMs }));
  }

  async spreadOverdue(now: number, windowMs: number, stages: readonly string[]): Promise<number> {
    return this.#calls.run(async () => this.#queue.spreadOverdue(now, windowMs, stages));
  }

  async addMember(set: string, member: string): Promise<void> {
    return this.#calls.run(() => this.#lists.addMember(set, member));
  }

  async listMembers(set: string): Promise<string[]> {
    return this.#calls.run(() => this.#lists.listMembers(set));
  }

  async removeMember(set: string, member: string): Promise<void> {
    return this.#calls.run(() => this.#lists.removeMember(set, member));
  }

  async deleteSet(set: string): Promise<void> {
    return this.#calls.run(() => this.#lists.deleteSet(set));
  }

  async pushIndex(index: string, jobId: string): Promise<void> {
    return this.#calls.run(() => this.#lists.pushIndex(index, jobId));
  }

  async listIndex(index: string): Promise<string[]> {
    return this.#calls.run(() => this.#lists.listIndex(index));
  }

  async deleteIndex(index: string): Promise<void> {
    return this.#calls.run(() => this.#lists.deleteIndex(index));
  }

  async listKeys(ns: Namespace, prefix: string): Promise<string[]> {
    const start = this.#keys.value(ns, "").length;
    return this.#calls.run(async () =>
      this.#db.keys(this.#keys.value(ns, prefix)).map((key) => key.slice(start)),
    );
  }

  async ping(): Promise<boolean> {
    if (this.#calls.closed) return false;
    try {
      return this.#db.ping();
    } catch {
      return false;
    }
  }

  /** In memory, nothing outlives the process: nothing to wipe. */
  async scrub(): Promise<void> {
    return this.#calls.run(async () => {
      if (this.kind === "sqlite") this.#db.scrub();
    });
  }

  async checkEpoch(): Promise<EpochCheck> {
    if (this.#calls.closed) throw new StoreClosedError();
    return "same";
  }

  /** Deletes expired entries now (also runs on a timer); resolves to how many went. */
  sweepExpired(): Promise<number> {
    return this.#calls.run(async () => this.#db.sweepExpired());
  }

  /** Moves an active index of an earlier version (a JSON value) into the table, once. */
  async moveLegacyActiveIndex(): Promise<void> {
    const keyv = this.#keyv;
    const stagesKey = `${this.#keys.prefix}:active-stages`;
    const idsKey = `${this.#keys.prefix}:active`;
    const legacy = (await keyv.get<string[]>(idsKey)) ?? [];
    const stages = (await keyv.get<Record<string, string>>(stagesKey)) ?? {};
    for (const id of legacy) if (!Object.hasOwn(stages, id)) this.#queue.active.set(id, "");
    for (const [id, stage] of Object.entries(stages)) this.#queue.active.set(id, stage);
    if (legacy.length > 0) await keyv.delete(idsKey);
    if (Object.keys(stages).length > 0) await keyv.delete(stagesKey);
  }

  async close(): Promise<void> {
    if (this.#calls.closed) return;
    clearInterval(this.#sweepTimer);
    // Started writes land first: an acknowledged write must not be lost.
    await this.#calls.close();
    await this.#db.disconnect();
  }
}
