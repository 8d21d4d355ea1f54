import type Keyv from "keyv";
import { KeyedMutex } from "../util/keyed-mutex.ts";
import {
  CallTracker,
  type KeyvBackend,
  type KeyvStoreOptions,
  startSweep,
} from "./keyv-backend.ts";
import { JsonLists } from "./keyv-lists.ts";
import { LocalQueue } from "./local-queue.ts";
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
 * The one-process store (SQLite, memory) on Keyv: its read-modify-writes are atomic because
 * this process is the only writer (a mutex per key, leases in a Map).
 */
export class KeyvStore implements Store {
  readonly kind: "sqlite" | "memory";
  readonly #backend: KeyvBackend;
  readonly #keyv: Keyv;
  readonly #keys: StoreKeys;
  readonly #mutex = new KeyedMutex();
  readonly #queue: LocalQueue;
  readonly #lists: JsonLists;
  readonly #calls: CallTracker;
  readonly #sweepTimer: NodeJS.Timeout | undefined;

  constructor(backend: KeyvBackend, options: KeyvStoreOptions) {
    this.kind = backend.kind;
    this.#calls = new CallTracker(backend.kind === "sqlite" ? "SQLite" : "The memory store");
    this.#backend = backend;
    this.#keyv = backend.keyv;
    this.#keys = storeKeys(options.keyPrefix);
    const { keyPrefix, logger } = options;
    this.#queue = new LocalQueue(
      backend.dueQueue(keyPrefix),
      backend.activeIndex(keyPrefix),
      options.clock,
    );
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
    return this.#calls.run(() =>
      this.#backend.compareAndSet(full, JSON.stringify(expected), next, ttl),
    );
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
    // In Keyv, not in memory: Slack retries an event minutes later, maybe to a new process.
    const { claim } = this.#backend;
    if (claim !== undefined) return this.#calls.run(() => claim(fullKey, ttl));
    return this.#calls.run(() =>
      this.#mutex.run(fullKey, async () => {
        if ((await this.#keyv.get(fullKey)) !== undefined) return false;
        await this.#keyv.set(fullKey, 1, ttl);
        return true;
      }),
    );
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
      (await this.#backend.keys(this.#keys.value(ns, prefix))).map((key) => key.slice(start)),
    );
  }

  async ping(): Promise<boolean> {
    if (this.#calls.closed) return false;
    return this.#backend.ping().catch(() => false);
  }

  async scrub(): Promise<void> {
    return this.#calls.run(async () => this.#backend.scrub?.());
  }

  async checkEpoch(): Promise<EpochCheck> {
    if (this.#calls.closed) throw new StoreClosedError();
    return "same";
  }

  /** Deletes expired entries now (also runs on a timer); resolves to how many went. */
  sweepExpired(): Promise<number> {
    return this.#calls.run(() => this.#backend.sweepExpired());
  }

  async close(): Promise<void> {
    if (this.#calls.closed) return;
    clearInterval(this.#sweepTimer);
    // Started writes land first: an acknowledged write must not be lost.
    await this.#calls.close();
    await this.#backend.close();
  }
}
