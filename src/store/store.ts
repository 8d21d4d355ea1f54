import type { Logger } from "pino";

export const NAMESPACES = ["jobs", "blobs", "settings", "templates", "meta", "installs"] as const;
export type Namespace = (typeof NAMESPACES)[number];

export type StoreKind = "sqlite" | "redis" | "memory";

/** How many job ids a secondary index (channel, user) keeps: the newest ones. */
export const INDEX_LIMIT = 50;

export interface OpenStoreOptions {
  logger?: Logger;
  /** Prefix of every key this store writes; lets several apps or test runs share a Redis. */
  keyPrefix?: string;
  /** Redis: the longest one call may take, sent or not (default 2 s). */
  timeoutMs?: number;
}

/** `reset`: the store lost its data since the last check (a Redis restarted empty). */
export type EpochCheck = "same" | "reset";

/** Durable state of the bot: JSON values whose TTLs (ms) expire on every backend. */
export interface Store {
  readonly kind: StoreKind;
  /**
   * The store's clock (ms since the epoch): monotonic within a process and Redis's own on
   * Redis, so a jump of a host's wall clock moves no due time and ends no lease.
   */
  now(): number;
  get<T>(ns: Namespace, key: string): Promise<T | undefined>;
  set<T>(ns: Namespace, key: string, value: T, ttlMs?: number): Promise<void>;
  delete(ns: Namespace, key: string): Promise<void>;
  /** Writes `next` only while the stored value still equals `expected` (as JSON), atomically. */
  compareAndSet<T>(
    ns: Namespace,
    key: string,
    expected: T,
    next: T,
    ttlMs?: number,
  ): Promise<boolean>;
  /** Keys of a namespace starting with `prefix`, for rare sweeps: Redis SCANs every key. */
  listKeys(ns: Namespace, prefix: string): Promise<string[]>;
  /** Gives a value a new TTL without changing it; nothing when the key is gone. */
  touch(ns: Namespace, key: string, ttlMs: number): Promise<void>;
  /** Atomic "claim once": true only for the first caller while the key lives (event dedupe). */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** `claim` for many short-lived keys (request signatures): in memory on one-process stores. */
  claimBriefly(key: string, ttlMs: number): Promise<boolean>;
  /** Gives a claim back, for when the work it guarded could not be recorded. */
  releaseClaim(key: string): Promise<void>;
  /** Takes a lease when nobody holds it: resolves to the holder's token, or undefined. */
  acquireLease(key: string, ttlMs: number): Promise<string | undefined>;
  /** Extends a lease, only for its holder: true while the token still holds it. */
  renewLease(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Gives a lease back, only for its holder (compare-and-delete); otherwise does nothing. */
  releaseLease(key: string, token: string): Promise<void>;
  /** Puts the job in the active index under `stage`, or moves it there. */
  addActive(jobId: string, stage: string): Promise<void>;
  removeActive(jobId: string): Promise<void>;
  listActive(): Promise<string[]>;
  /** How many active ids each stage holds, without reading a job (metrics). */
  countActive(): Promise<Record<string, number>>;
  /** Puts the job in the due queue for `at` (on the store's clock), or moves it there. */
  schedule(jobId: string, at: number): Promise<void>;
  unschedule(jobId: string): Promise<void>;
  /**
   * Claims up to `limit` jobs due by `now` atomically: each one's lease is taken and its due
   * time moved past the lease; a job whose lease is held moves to when that lease ends. A job
   * this replica's previous process left mid-step is claimable at once after a restart.
   */
  claimDue(
    now: number,
    limit: number,
    leasePrefix: string,
    leaseTtlMs: number,
  ): Promise<{ claimed: DueClaim[]; next: number | undefined }>;
  /**
   * Spreads the jobs of `stages` overdue at `now` evenly over `windowMs`, longest overdue
   * first, once per restart of the fleet (a lease on Redis); resolves to how many moved.
   */
  spreadOverdue(now: number, windowMs: number, stages: readonly string[]): Promise<number>;
  /** An unbounded set of strings (what a workspace left in the store, say). */
  addMember(set: string, member: string): Promise<void>;
  listMembers(set: string): Promise<string[]>;
  removeMember(set: string, member: string): Promise<void>;
  deleteSet(set: string): Promise<void>;
  /** Puts a job id first in a bounded index (newest {@link INDEX_LIMIT} kept, no duplicates). */
  pushIndex(index: string, jobId: string): Promise<void>;
  listIndex(index: string): Promise<string[]>;
  deleteIndex(index: string): Promise<void>;
  /** Makes deleted data unreadable in the store's own files (SQLite's WAL); else nothing. */
  scrub(): Promise<void>;
  /** Cheap reachability check: resolves true/false, never throws. */
  ping(): Promise<boolean>;
  /**
   * `reset` once after the store lost its data (its epoch key gone or changed), else `same`;
   * SQLite and memory are always `same`.
   */
  checkEpoch(): Promise<EpochCheck>;
  /** Closes connections and timers so the process can exit. Safe to call twice. */
  close(): Promise<void>;
}

export interface DueClaim {
  jobId: string;
  token: string;
}

/** Thrown by every method of a store after `close()`. */
export class StoreClosedError extends Error {
  constructor() {
    super("The store is closed.");
    this.name = "StoreClosedError";
  }
}

/** A store call failed, or passed its deadline (`timedOut`: it may still take effect). */
export class StoreError extends Error {
  readonly code = "store_failed";
  readonly timedOut: boolean;

  constructor(message: string, options: { timedOut?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StoreError";
    this.timedOut = options.timedOut ?? false;
  }
}

/** TTLs reach Redis as whole milliseconds; a TTL must be a positive, finite number. */
export function checkTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`A TTL must be a positive number of milliseconds, got ${ttlMs}.`);
  }
  return Math.ceil(ttlMs);
}

/** The keys under a store's prefix, laid out alike on every backend. */
export function storeKeys(prefix: string) {
  return {
    prefix,
    value: (ns: Namespace, key: string) => `${prefix}:${ns}:${key}`,
    claim: (key: string) => `${prefix}:claim:${key}`,
    set: (name: string) => `${prefix}:set:${name}`,
    index: (name: string) => `${prefix}:index:${name}`,
  };
}

export type StoreKeys = ReturnType<typeof storeKeys>;

/** A backend's failure as a {@link StoreError} that names the call. */
export function storeFailure(call: string, error: unknown): StoreError {
  const reason = error instanceof Error ? error.message || error.name : String(error);
  return new StoreError(`${call} failed: ${reason}`, { cause: error });
}
