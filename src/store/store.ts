import type { Logger } from "pino";

/** The namespaces of generic JSON values. Each one is a separate key space. */
export const NAMESPACES = ["jobs", "blobs", "settings", "templates", "meta", "installs"] as const;
export type Namespace = (typeof NAMESPACES)[number];

export type StoreKind = "sqlite" | "redis" | "memory";

/** How many job ids a secondary index (channel, user) keeps: the newest ones. */
export const INDEX_LIMIT = 50;

export interface OpenStoreOptions {
  logger?: Logger;
  /** Prefix of every key this store writes; lets several apps or test runs share a Redis. */
  keyPrefix?: string;
  /**
   * Redis: the longest one store call may take, sent or not (default 2 s); past it the call
   * rejects with a {@link StoreError}. SQLite and memory answer synchronously.
   */
  timeoutMs?: number;
}

/**
 * What {@link Store.checkEpoch} found: the store still holds what this process saw
 * (`same`), or it lost its data since the last check (`reset`: a Redis restarted empty or
 * flushed) and a new epoch is written.
 */
export type EpochCheck = "same" | "reset";

/**
 * Durable state of the bot. Values are JSON-serialisable; TTLs are in milliseconds and
 * really expire entries on every backend.
 */
export interface Store {
  readonly kind: StoreKind;
  /**
   * The store's clock, in ms since the epoch: due times, lease ends and every time the job
   * layer keeps are read from it. Monotonic within a process, so a jump of this host's wall
   * clock moves no due time or lease (see `StoreClock`); on Redis it follows the Redis
   * server's clock, the same for every replica whatever their own clocks say.
   */
  now(): number;
  /** Generic JSON values per namespace, with optional TTL in ms. */
  get<T>(ns: Namespace, key: string): Promise<T | undefined>;
  set<T>(ns: Namespace, key: string, value: T, ttlMs?: number): Promise<void>;
  delete(ns: Namespace, key: string): Promise<void>;
  /**
   * Compare-and-set: writes `next` (with `ttlMs`, as `set`) only while the stored value is
   * still `expected` (equal as JSON; never when the key is gone), in one atomic step that no
   * other writer, process or replica can slip into; true when it wrote. For a read, then a
   * write that must not undo what another wrote meanwhile (a token refresh and a reinstall).
   */
  compareAndSet<T>(
    ns: Namespace,
    key: string,
    expected: T,
    next: T,
    ttlMs?: number,
  ): Promise<boolean>;
  /**
   * The keys of a namespace that start with `prefix` (`""`: all of them). For rare sweeps,
   * such as an uninstall: Redis walks every key of the namespace (SCAN) to answer.
   */
  listKeys(ns: Namespace, prefix: string): Promise<string[]>;
  /** Gives a value a new TTL without changing it; nothing when the key is gone. */
  touch(ns: Namespace, key: string, ttlMs: number): Promise<void>;
  /** Atomic "claim once": true only for the first caller while the key lives (event dedupe). */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /**
   * "Claim once" for many short-lived keys (a signature per Slack request, to refuse replays):
   * true only for the first caller while the key lives. Shared by replicas on Redis; kept in
   * memory on the single-process backends, where nothing is written to disk per call.
   */
  claimBriefly(key: string, ttlMs: number): Promise<boolean>;
  /** Gives a claim back, for when the work it guarded could not be recorded. */
  releaseClaim(key: string): Promise<void>;
  /** Takes a lease when nobody holds it: resolves to the holder's token, or undefined. */
  acquireLease(key: string, ttlMs: number): Promise<string | undefined>;
  /** Extends a lease, only for its holder: true while the token still holds it. */
  renewLease(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Gives a lease back, only for its holder (compare-and-delete); otherwise does nothing. */
  releaseLease(key: string, token: string): Promise<void>;
  /**
   * Index of active (unfinished) job ids, each under its stage; survives restart. Adding an
   * id that is there moves it to `stage` (so counts heal on every stage change).
   */
  addActive(jobId: string, stage: string): Promise<void>;
  /** Takes the id out of the index and out of every stage. */
  removeActive(jobId: string): Promise<void>;
  listActive(): Promise<string[]>;
  /** How many active ids each stage holds, without reading a job (metrics). */
  countActive(): Promise<Record<string, number>>;
  /**
   * The due queue: when each active job is next to be looked at (`at`, on the store's clock,
   * `now()`). Puts the job in it for `at`, or moves it there.
   */
  schedule(jobId: string, at: number): Promise<void>;
  /** Takes the job out of the due queue (it waits for a person, or it is over). */
  unschedule(jobId: string): Promise<void>;
  /**
   * Claims up to `limit` jobs due by `now`, in one atomic step: each one's lease
   * (`leasePrefix + id`) is taken for `leaseTtlMs` and its due time moved past the lease, so
   * no one sees it again before the lease could have lapsed (a holder that dies frees it by
   * expiry). A due job whose lease someone else holds moves to when that lease ends. With
   * `limit` 0, claims nothing. `next` is the earliest due time left in the queue.
   *
   * A job whose step this replica's previous instance left unfinished (killed mid-step) is
   * claimable at once on restart, not a lease later: SQLite makes such jobs due when it
   * opens (its leases died with the process); Redis, on its first claims, frees the leases
   * its previous instance held (see `RedisStore`).
   */
  claimDue(
    now: number,
    limit: number,
    leasePrefix: string,
    leaseTtlMs: number,
  ): Promise<{ claimed: DueClaim[]; next: number | undefined }>;
  /**
   * Spreads the backlog a restart finds: every job due by `now` whose stage (in the active
   * index) is one of `stages` is given a new due time, evenly over `[now, now + windowMs)`,
   * in the order they were due (the longest overdue first). Jobs of other stages stay due
   * now. Once per restart of the fleet: on Redis the first replica to call it takes a lease
   * for `windowMs`, and any call while it is held spreads nothing (the backlog is spread
   * already). Resolves to how many jobs it moved.
   */
  spreadOverdue(now: number, windowMs: number, stages: readonly string[]): Promise<number>;
  /** An unbounded set of strings (what a workspace left in the store, say). */
  addMember(set: string, member: string): Promise<void>;
  listMembers(set: string): Promise<string[]>;
  /** Takes one member out of a set; nothing when it is not there. */
  removeMember(set: string, member: string): Promise<void>;
  deleteSet(set: string): Promise<void>;
  /** Puts a job id first in a bounded index (newest {@link INDEX_LIMIT} kept, no duplicates). */
  pushIndex(index: string, jobId: string): Promise<void>;
  /** The ids of an index, newest first. */
  listIndex(index: string): Promise<string[]>;
  /** Deletes an index (the workspace it belongs to is gone). */
  deleteIndex(index: string): Promise<void>;
  /**
   * Makes what was deleted so far unreadable in the store's own files, once the deletes
   * have resolved: SQLite overwrites freed pages with zeros as it deletes (`secure_delete`),
   * but its write-ahead log keeps the old pages until a checkpoint copies the new ones over
   * and the log is truncated; this does that. Memory and Redis have no such files of ours
   * (Redis's own RDB/AOF persistence is the Redis operator's): nothing to do.
   */
  scrub(): Promise<void>;
  /** Cheap reachability check: resolves true/false, never throws. */
  ping(): Promise<boolean>;
  /**
   * Tells a store that lost its data from one that did not. The first call writes the
   * store's epoch (a random value, `SET NX`: replicas share it) and remembers it; each later
   * call reads it back, and a value gone or changed means everything was lost meanwhile —
   * the store then writes a new epoch and answers `reset` (once per loss). SQLite and memory
   * cannot lose their data under a running process: always `same`. Rejects when the store
   * cannot be read.
   */
  checkEpoch(): Promise<EpochCheck>;
  /** Closes connections and timers so the process can exit. Safe to call twice. */
  close(): Promise<void>;
}

/** A job taken from the due queue, and the token of the lease taken with it. */
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

/**
 * A store call failed: the backend refused it (SQLite: disk full, read-only file; Redis: an
 * error reply, offline) or gave no answer within its deadline (`timedOut`). The backend's
 * own error, if any, is the `cause`; the message names the backend and the call.
 */
export class StoreError extends Error {
  readonly code = "store_failed";
  /** No answer within the call's deadline: the call may still take effect later. */
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
