import type Keyv from "keyv";
import type { Logger } from "pino";
import type { ActiveIndex } from "./active-index.ts";
import type { DueQueue } from "./due-heap.ts";
import type { ClockSources } from "./store-clock.ts";

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
  /**
   * Stores `next` under `key` (for `ttlMs`, as a set does) only while a live entry there
   * holds the value whose JSON is `expected`, in one step nothing else interleaves with;
   * true when it wrote (see `Store.compareAndSet`).
   */
  compareAndSet(key: string, expected: string, next: unknown, ttlMs?: number): Promise<boolean>;
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
