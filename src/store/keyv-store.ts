import type Keyv from "keyv";
import type { Logger } from "pino";
import type { ActiveIndex } from "./active-index.ts";
import { BriefClaims } from "./brief-claims.ts";
import { CallTracker } from "./call-tracker.ts";
import { claimFromQueue, type DueQueue, spreadTimes } from "./due-heap.ts";
import { KeyedMutex } from "./keyed-mutex.ts";
import type { KeyvBackend, KeyvStoreOptions } from "./keyv-backend.ts";
import { LeaseTable } from "./lease-table.ts";
import {
  checkTtl,
  type EpochCheck,
  INDEX_LIMIT,
  type Namespace,
  type Store,
  StoreClosedError,
} from "./store.ts";
import { StoreClock } from "./store-clock.ts";

export type { KeyvBackend, KeyvStoreOptions } from "./keyv-backend.ts";

const HOUR_MS = 60 * 60 * 1000;

/**
 * The one-process store (SQLite, memory) on Keyv: its read-modify-writes are atomic because
 * this process is the only writer (a mutex per key, leases in a Map).
 */
export class KeyvStore implements Store {
  readonly kind: "sqlite" | "memory";
  readonly #backend: KeyvBackend;
  readonly #keyv: Keyv;
  readonly #prefix: string;
  readonly #logger: Logger | undefined;
  readonly #mutex = new KeyedMutex();
  readonly #clock: StoreClock;
  readonly #leases: LeaseTable;
  readonly #briefClaims: BriefClaims;
  readonly #due: DueQueue;
  readonly #active: ActiveIndex;
  readonly #calls: CallTracker;
  readonly #sweepTimer: NodeJS.Timeout | undefined;
  #sweeping = false;

  constructor(backend: KeyvBackend, options: KeyvStoreOptions) {
    this.kind = backend.kind;
    this.#calls = new CallTracker(backend.kind === "sqlite" ? "SQLite" : "The memory store");
    this.#backend = backend;
    this.#keyv = backend.keyv;
    this.#prefix = options.keyPrefix;
    this.#logger = options.logger;
    this.#due = backend.dueQueue(options.keyPrefix);
    this.#active = backend.activeIndex(options.keyPrefix);
    this.#clock = new StoreClock(options.clock);
    // On the monotonic clock: a wall clock set forward does not end a lease kept renewed.
    const now = () => this.#clock.now();
    this.#leases = new LeaseTable(now);
    this.#briefClaims = new BriefClaims(now);
    this.#resumeFromDisk();
    const interval = options.sweepIntervalMs ?? HOUR_MS;
    if (interval > 0) {
      this.#sweepTimer = setInterval(() => void this.#scheduledSweep(), interval);
      this.#sweepTimer.unref();
    }
  }

  now(): number {
    return this.#clock.now();
  }

  async get<T>(ns: Namespace, key: string): Promise<T | undefined> {
    return this.#calls.run(() => this.#keyv.get<T>(this.#key(ns, key)));
  }

  async set<T>(ns: Namespace, key: string, value: T, ttlMs?: number): Promise<void> {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    return this.#calls.run(async () => {
      await this.#keyv.set(this.#key(ns, key), value, ttl);
    });
  }

  async compareAndSet<T>(ns: Namespace, key: string, expected: T, next: T, ttlMs?: number) {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    const full = this.#key(ns, key);
    return this.#calls.run(() =>
      this.#backend.compareAndSet(full, JSON.stringify(expected), next, ttl),
    );
  }

  /** Keyv has no expire: the value is written again with the new TTL. */
  async touch(ns: Namespace, key: string, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs);
    const fullKey = this.#key(ns, key);
    return this.#calls.run(() =>
      this.#mutex.run(fullKey, async () => {
        const value = await this.#keyv.get(fullKey);
        if (value !== undefined) await this.#keyv.set(fullKey, value, ttl);
      }),
    );
  }

  async delete(ns: Namespace, key: string): Promise<void> {
    return this.#calls.run(async () => {
      await this.#keyv.delete(this.#key(ns, key));
    });
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    const fullKey = `${this.#prefix}:claim:${key}`;
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
    return this.#calls.run(async () => this.#briefClaims.claim(key, ttl));
  }

  async releaseClaim(key: string): Promise<void> {
    const fullKey = `${this.#prefix}:claim:${key}`;
    return this.#calls.run(() =>
      this.#mutex.run(fullKey, async () => {
        await this.#keyv.delete(fullKey);
      }),
    );
  }

  async acquireLease(key: string, ttlMs: number): Promise<string | undefined> {
    const ttl = checkTtl(ttlMs);
    return this.#calls.run(async () => this.#leases.acquire(key, ttl));
  }

  async renewLease(key: string, token: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#calls.run(async () => this.#leases.renew(key, token, ttl));
  }

  async releaseLease(key: string, token: string): Promise<void> {
    return this.#calls.run(async () => this.#leases.release(key, token));
  }

  async addActive(jobId: string, stage: string): Promise<void> {
    return this.#calls.run(async () => this.#active.set(jobId, stage));
  }

  async removeActive(jobId: string): Promise<void> {
    return this.#calls.run(async () => this.#active.delete(jobId));
  }

  async listActive(): Promise<string[]> {
    return this.#calls.run(async () => this.#active.ids());
  }

  async countActive(): Promise<Record<string, number>> {
    return this.#calls.run(async () => this.#active.counts());
  }

  async schedule(jobId: string, at: number): Promise<void> {
    return this.#calls.run(async () => this.#due.set(jobId, at, this.#clock.now()));
  }

  async unschedule(jobId: string): Promise<void> {
    return this.#calls.run(async () => this.#due.delete(jobId));
  }

  /** Atomic because it is synchronous: the queue and the leases live in this process. */
  async claimDue(now: number, limit: number, leasePrefix: string, leaseTtlMs: number) {
    const ttl = checkTtl(leaseTtlMs);
    return this.#calls.run(async () =>
      claimFromQueue(this.#due, this.#leases, { now, limit, leasePrefix, ttlMs: ttl }),
    );
  }

  /** One process owns the queue: no lease needed; synchronous, so nothing runs between. */
  async spreadOverdue(now: number, windowMs: number, stages: readonly string[]): Promise<number> {
    return this.#calls.run(async () => {
      const inOneStatement = this.#due.spreadOverdue;
      if (inOneStatement !== undefined) {
        return inOneStatement(now, windowMs, stages, this.#clock.now());
      }
      const waiting = new Set(stages);
      const overdue = this.#due
        .due(now, Number.MAX_SAFE_INTEGER)
        .filter((id) => waiting.has(this.#active.stageOf(id) ?? ""));
      this.#due.setMany(spreadTimes(overdue, now, windowMs), this.#clock.now());
      return overdue.length;
    });
  }

  async addMember(set: string, member: string): Promise<void> {
    return this.#updateList(`${this.#prefix}:set:${set}`, (members) =>
      members.includes(member) ? undefined : [...members, member],
    );
  }

  async listMembers(set: string): Promise<string[]> {
    return this.#calls.run(
      async () => (await this.#keyv.get<string[]>(`${this.#prefix}:set:${set}`)) ?? [],
    );
  }

  async removeMember(set: string, member: string): Promise<void> {
    return this.#updateList(`${this.#prefix}:set:${set}`, (members) =>
      members.includes(member) ? members.filter((m) => m !== member) : undefined,
    );
  }

  async deleteSet(set: string): Promise<void> {
    return this.#updateList(`${this.#prefix}:set:${set}`, () => []);
  }

  async pushIndex(index: string, jobId: string): Promise<void> {
    return this.#updateList(`${this.#prefix}:index:${index}`, (ids) =>
      ids[0] === jobId
        ? undefined
        : [jobId, ...ids.filter((id) => id !== jobId)].slice(0, INDEX_LIMIT),
    );
  }

  async listIndex(index: string): Promise<string[]> {
    return this.#calls.run(
      async () => (await this.#keyv.get<string[]>(`${this.#prefix}:index:${index}`)) ?? [],
    );
  }
  async deleteIndex(index: string): Promise<void> {
    return this.#updateList(`${this.#prefix}:index:${index}`, () => []);
  }

  async listKeys(ns: Namespace, prefix: string): Promise<string[]> {
    const start = this.#key(ns, "").length;
    return this.#calls.run(async () =>
      (await this.#backend.keys(this.#key(ns, prefix))).map((key) => key.slice(start)),
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

  /**
   * A queue on disk was written by an earlier process: the clock resumes from its latest
   * change (the wall clock may have been set back since), and the jobs that process left
   * leased mid-step (its leases died with it) are due now.
   */
  #resumeFromDisk(): void {
    const last = this.#due.lastChangedAt?.();
    if (last !== undefined) this.#clock.advanceTo(last);
    const resumed = this.#due.resumeLeased?.(this.#clock.now()) ?? 0;
    if (resumed > 0) this.#logger?.info({ resumed }, "store: interrupted jobs due now");
  }

  #key(ns: Namespace, key: string): string {
    return `${this.#prefix}:${ns}:${key}`;
  }

  /** Read-modify-write of a JSON array under the mutex; `change` → undefined means no write. */
  #updateList(fullKey: string, change: (ids: string[]) => string[] | undefined): Promise<void> {
    return this.#calls.run(() =>
      this.#mutex.run(fullKey, async () => {
        const next = change((await this.#keyv.get<string[]>(fullKey)) ?? []);
        if (next === undefined) return;
        if (next.length === 0) await this.#keyv.delete(fullKey);
        else await this.#keyv.set(fullKey, next);
      }),
    );
  }

  async #scheduledSweep(): Promise<void> {
    if (this.#sweeping || this.#calls.closed) return;
    this.#sweeping = true;
    try {
      const removed = await this.sweepExpired();
      if (removed > 0) this.#logger?.debug({ removed }, "store: expired entries deleted");
    } catch (error) {
      this.#logger?.warn({ err: error }, "store: deleting expired entries failed");
    } finally {
      this.#sweeping = false;
    }
  }
}
