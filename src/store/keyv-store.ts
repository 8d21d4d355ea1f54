import type Keyv from "keyv";
import type { Logger } from "pino";
import type { ActiveIndex } from "./active-index.ts";
import { BriefClaims } from "./brief-claims.ts";
import { claimFromQueue, type DueQueue } from "./due-heap.ts";
import { KeyedMutex } from "./keyed-mutex.ts";
import { LeaseTable } from "./lease-table.ts";
import {
  checkTtl,
  type EpochCheck,
  INDEX_LIMIT,
  type Namespace,
  type Store,
  StoreClosedError,
  StoreError,
} from "./store.ts";
import { type ClockSources, StoreClock } from "./store-clock.ts";

/** What the memory and SQLite backends bring; the rest of the behaviour is shared. */
export interface KeyvBackend {
  readonly kind: "sqlite" | "memory";
  readonly keyv: Keyv;
  ping(): Promise<boolean>;
  /** Deletes entries whose TTL has passed; resolves to how many. */
  sweepExpired(): Promise<number>;
  /**
   * Stores `1` under `key` for `ttlMs` unless a live entry holds it, in one atomic step;
   * true when this call stored it. Without it, a claim is a read then a write under this
   * process's mutex.
   */
  claim?(key: string, ttlMs: number): Promise<boolean>;
  /** The due queue of this store's prefix (SQLite: a table; memory: a heap). */
  dueQueue(scope: string): DueQueue;
  /** The active-job index of this store's prefix (SQLite: a table; memory: a Map). */
  activeIndex(scope: string): ActiveIndex;
  /** The full keys that start with `prefix` (values left alone). */
  keys(prefix: string): Promise<string[]>;
  /** Wipes deleted data from the backend's files (SQLite); see `Store.scrub`. */
  scrub?(): Promise<void>;
  close(): Promise<void>;
}

export interface KeyvStoreOptions {
  keyPrefix: string;
  logger?: Logger;
  /** How often expired entries are deleted from the backend (default hourly; 0 = never). */
  sweepIntervalMs?: number;
  /** The host's clocks (tests pass a wall clock that jumps). */
  clock?: ClockSources;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * The store for a single process: memory (tests) and SQLite (the default). Plain values go
 * through Keyv; the "atomic" operations are atomic because this process is the only writer:
 * read-modify-write sections run under an in-process mutex, leases live in a Map.
 *
 * The active-job index (id → stage) is one JSON object, the channel/user indexes one JSON
 * array per key. Reading the whole active index is one row read and one `JSON.parse`, while
 * one-key-per-id would need Keyv's iterator, which @keyv/sqlite pages with
 * `LIKE … LIMIT 10 OFFSET n` over the whole table (jobs included) — quadratic and slow
 * at 5,000. The price is rewriting the array on each add/remove: measured on SQLite at
 * 5,000 ids of 36 characters, ≈2 ms per add/remove (a plain `set` ≈0.4 ms) and ≈0.5 ms per
 * list. A job adds and removes itself once, so that cost stays small.
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
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #sweepTimer: NodeJS.Timeout | undefined;
  #sweeping = false;
  #closed = false;

  constructor(backend: KeyvBackend, options: KeyvStoreOptions) {
    this.kind = backend.kind;
    this.#backend = backend;
    this.#keyv = backend.keyv;
    this.#prefix = options.keyPrefix;
    this.#logger = options.logger;
    this.#due = backend.dueQueue(options.keyPrefix);
    this.#active = backend.activeIndex(options.keyPrefix);
    this.#clock = new StoreClock(options.clock);
    // Leases and short claims live in this process: measured on its monotonic clock, so a
    // wall clock set forward mid-step does not end a lease its holder keeps renewing.
    const now = () => this.#clock.now();
    this.#leases = new LeaseTable(now);
    this.#briefClaims = new BriefClaims(now);
    this.#resumeFromDisk();
    const interval = options.sweepIntervalMs ?? HOUR_MS;
    if (interval > 0) {
      this.#sweepTimer = setInterval(() => void this.#scheduledSweep(), interval);
      // The sweep is housekeeping; it must never be the reason a process stays alive.
      this.#sweepTimer.unref();
    }
  }

  now(): number {
    return this.#clock.now();
  }

  async get<T>(ns: Namespace, key: string): Promise<T | undefined> {
    return this.#track(() => this.#keyv.get<T>(this.#key(ns, key)));
  }

  async set<T>(ns: Namespace, key: string, value: T, ttlMs?: number): Promise<void> {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    return this.#track(async () => {
      await this.#keyv.set(this.#key(ns, key), value, ttl);
    });
  }

  /** Keyv has no expire: the value is written again with the new TTL. */
  async touch(ns: Namespace, key: string, ttlMs: number): Promise<void> {
    const ttl = checkTtl(ttlMs);
    const fullKey = this.#key(ns, key);
    return this.#track(() =>
      this.#mutex.run(fullKey, async () => {
        const value = await this.#keyv.get(fullKey);
        if (value !== undefined) await this.#keyv.set(fullKey, value, ttl);
      }),
    );
  }

  async delete(ns: Namespace, key: string): Promise<void> {
    return this.#track(async () => {
      await this.#keyv.delete(this.#key(ns, key));
    });
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    const fullKey = `${this.#prefix}:claim:${key}`;
    // Stored in Keyv (not only in memory) so a claim outlives a restart: Slack retries
    // an event minutes later, possibly to the restarted process.
    const { claim } = this.#backend;
    if (claim !== undefined) return this.#track(() => claim(fullKey, ttl));
    return this.#track(() =>
      this.#mutex.run(fullKey, async () => {
        if ((await this.#keyv.get(fullKey)) !== undefined) return false;
        await this.#keyv.set(fullKey, 1, ttl);
        return true;
      }),
    );
  }

  async claimBriefly(key: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#track(async () => this.#briefClaims.claim(key, ttl));
  }

  async releaseClaim(key: string): Promise<void> {
    const fullKey = `${this.#prefix}:claim:${key}`;
    return this.#track(() =>
      this.#mutex.run(fullKey, async () => {
        await this.#keyv.delete(fullKey);
      }),
    );
  }

  async acquireLease(key: string, ttlMs: number): Promise<string | undefined> {
    const ttl = checkTtl(ttlMs);
    return this.#track(async () => this.#leases.acquire(key, ttl));
  }

  async renewLease(key: string, token: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#track(async () => this.#leases.renew(key, token, ttl));
  }

  async releaseLease(key: string, token: string): Promise<void> {
    return this.#track(async () => this.#leases.release(key, token));
  }

  async addActive(jobId: string, stage: string): Promise<void> {
    return this.#track(async () => this.#active.set(jobId, stage));
  }

  async removeActive(jobId: string): Promise<void> {
    return this.#track(async () => this.#active.delete(jobId));
  }

  async listActive(): Promise<string[]> {
    return this.#track(async () => this.#active.ids());
  }

  /** From the index alone: no job record is read. */
  async countActive(): Promise<Record<string, number>> {
    return this.#track(async () => this.#active.counts());
  }

  async schedule(jobId: string, at: number): Promise<void> {
    return this.#track(async () => this.#due.set(jobId, at, this.#clock.now()));
  }

  async unschedule(jobId: string): Promise<void> {
    return this.#track(async () => this.#due.delete(jobId));
  }

  /** Atomic because it is synchronous: the queue and the leases live in this process. */
  async claimDue(now: number, limit: number, leasePrefix: string, leaseTtlMs: number) {
    const ttl = checkTtl(leaseTtlMs);
    return this.#track(async () =>
      claimFromQueue(this.#due, this.#leases, { now, limit, leasePrefix, ttlMs: ttl }),
    );
  }

  async addMember(set: string, member: string): Promise<void> {
    return this.#updateList(`${this.#prefix}:set:${set}`, (members) =>
      members.includes(member) ? undefined : [...members, member],
    );
  }

  async listMembers(set: string): Promise<string[]> {
    return this.#track(
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
    return this.#track(
      async () => (await this.#keyv.get<string[]>(`${this.#prefix}:index:${index}`)) ?? [],
    );
  }
  async deleteIndex(index: string): Promise<void> {
    return this.#updateList(`${this.#prefix}:index:${index}`, () => []);
  }

  async listKeys(ns: Namespace, prefix: string): Promise<string[]> {
    const start = this.#key(ns, "").length;
    return this.#track(async () =>
      (await this.#backend.keys(this.#key(ns, prefix))).map((key) => key.slice(start)),
    );
  }

  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    return this.#backend.ping().catch(() => false);
  }

  async scrub(): Promise<void> {
    return this.#track(async () => this.#backend.scrub?.());
  }

  /** A SQLite file or a Map never loses its data under the process that holds it. */
  async checkEpoch(): Promise<EpochCheck> {
    if (this.#closed) throw new StoreClosedError();
    return "same";
  }

  /** Deletes expired entries now (also runs on a timer); resolves to how many went. */
  sweepExpired(): Promise<number> {
    return this.#track(() => this.#backend.sweepExpired());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    // Let started writes land before the connection goes: a half-done close must not
    // turn an acknowledged write into a lost one.
    await Promise.all(this.#inFlight);
    await this.#backend.close();
  }

  /**
   * A queue kept on disk was written by an earlier process of this store. Its due times are
   * on that process's clock: should this host's wall clock now read earlier (set back while
   * the bot was stopped), this clock resumes from the latest change instead, so no job waits
   * longer than it was planned to. And every job a claim had moved past its lease was in a
   * step that process never finished (its leases, in memory, died with it): due now.
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
    return this.#track(() =>
      this.#mutex.run(fullKey, async () => {
        const next = change((await this.#keyv.get<string[]>(fullKey)) ?? []);
        if (next === undefined) return;
        if (next.length === 0) await this.#keyv.delete(fullKey);
        else await this.#keyv.set(fullKey, next);
      }),
    );
  }

  /**
   * Runs one call, counted until it settles (see `close`). A backend failure — SQLite's
   * "database or disk is full", "attempt to write a readonly database" — rejects as a
   * {@link StoreError} naming the backend: never a silent success.
   */
  #track<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    const label = this.kind === "sqlite" ? "SQLite" : "The memory store";
    const result = operation().catch((error: unknown) => {
      if (error instanceof StoreError || error instanceof StoreClosedError) throw error;
      const reason = error instanceof Error ? error.message || error.name : String(error);
      throw new StoreError(`${label} call failed: ${reason}`, { cause: error });
    });
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
    return result;
  }

  async #scheduledSweep(): Promise<void> {
    if (this.#sweeping || this.#closed) return;
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
