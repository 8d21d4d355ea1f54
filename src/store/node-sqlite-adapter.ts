import { EventEmitter } from "node:events";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { KeyvStoreAdapter, StoredData } from "keyv";
import { entryHolds } from "./json-keyv.ts";
import {
  type ActiveIndex,
  type DueQueue,
  inTransaction,
  migrate,
  sqliteActiveIndex,
  sqliteDueQueue,
  TABLE,
} from "./sqlite-tables.ts";

/**
 * A Keyv adapter on Node's built-in `node:sqlite` (nothing to compile), the job tables beside it
 * (`sqlite-tables.ts`). WAL with `synchronous=NORMAL`: a process crash loses nothing, a power cut
 * may lose the last commits.
 */
export class NodeSqliteAdapter extends EventEmitter implements KeyvStoreAdapter {
  opts: Record<string, unknown> = {};
  namespace?: string;
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #set: StatementSync;
  readonly #delete: StatementSync;
  readonly #sweep: StatementSync;
  readonly #claim: StatementSync;
  readonly #keys: StatementSync;
  #open = true;

  constructor(path: string, options: { busyTimeoutMs?: number } = {}) {
    super();
    this.#db = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 5_000 });
    this.#db.exec("PRAGMA journal_mode = WAL");
    this.#db.exec("PRAGMA synchronous = NORMAL");
    // A setting of the connection, off by default: deleted rows' bytes are zeroed.
    this.#db.exec("PRAGMA secure_delete = ON");
    migrate(this.#db);
    this.#get = this.#db.prepare(`SELECT value FROM ${TABLE} WHERE key = ?`);
    this.#set = this.#db.prepare(
      `INSERT INTO ${TABLE} (key, value, expires) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
    );
    this.#delete = this.#db.prepare(`DELETE FROM ${TABLE} WHERE key = ?`);
    this.#sweep = this.#db.prepare(
      `DELETE FROM ${TABLE} WHERE expires IS NOT NULL AND expires < ?`,
    );
    // A free or expired key, taken in one statement: two claims never both win.
    this.#claim = this.#db.prepare(
      `INSERT INTO ${TABLE} (key, value, expires) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires
       WHERE ${TABLE}.expires IS NOT NULL AND ${TABLE}.expires <= ?`,
    );
    // GLOB, unlike LIKE, is case-sensitive: a prefix pattern is one range of the key index.
    this.#keys = this.#db.prepare(`SELECT key FROM ${TABLE} WHERE key GLOB ?`);
  }

  activeIndex(scope: string): ActiveIndex {
    return sqliteActiveIndex(this.#db, scope);
  }

  dueQueue(scope: string): DueQueue {
    return sqliteDueQueue(this.#db, scope);
  }

  /** Writes `value` (serialized) unless a live row holds `key`; true when it wrote. */
  claim(key: string, value: string, ttlMs: number, now = Date.now()): boolean {
    return Number(this.#claim.run(key, value, now + ttlMs, now).changes) > 0;
  }

  /** Writes `next` only while the live row holds the JSON `expected`, in one transaction. */
  compareAndSet(key: string, expected: string, next: string, expires?: number, now = Date.now()) {
    return inTransaction(
      this.#db,
      () => {
        const row = this.#get.get(key) as { value: string } | undefined;
        const holds = row !== undefined && entryHolds(row.value, expected, now);
        if (holds) this.#set.run(key, next, expires ?? null);
        return holds;
      },
      "BEGIN IMMEDIATE",
    );
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const row = this.#get.get(key) as { value: string } | undefined;
    return row?.value as StoredData<Value> | undefined;
  }

  async set(key: string, value: unknown, ttl?: number): Promise<void> {
    // Expiries stay on the wall clock, as Keyv's own: they must mean the same after a restart.
    const expires = ttl === undefined || ttl <= 0 ? null : Date.now() + ttl;
    this.#set.run(key, String(value), expires);
  }

  async delete(key: string): Promise<boolean> {
    return Number(this.#delete.run(key).changes) > 0;
  }

  async clear(): Promise<void> {
    this.#db.exec(`DELETE FROM ${TABLE}`);
  }

  /** The keys that start with `prefix`, expired rows not yet swept included. */
  keys(prefix: string): string[] {
    const pattern = `${prefix.replace(/[*?[]/g, (c) => `[${c}]`)}*`;
    return (this.#keys.all(pattern) as { key: string }[]).map((row) => row.key);
  }

  sweepExpired(now = Date.now()): number {
    return Number(this.#sweep.run(now).changes);
  }

  /**
   * Wipes deleted rows from the files: in WAL mode the zeroed pages reach the database only
   * at a checkpoint, and the log keeps old frames until truncated; pages freed before
   * `secure_delete` (an older file) go with a VACUUM. Throws when a reader holds the log.
   */
  scrub(): void {
    this.#checkpoint();
    const free = this.#db.prepare("PRAGMA freelist_count").get() as { freelist_count: number };
    if (free.freelist_count === 0) return;
    this.#db.exec("VACUUM");
    this.#checkpoint();
  }

  #checkpoint(): void {
    const result = this.#db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
    if (result.busy !== 0) {
      throw new Error("SQLite could not empty its write-ahead log: another connection reads it");
    }
  }

  ping(): boolean {
    this.#db.prepare("SELECT 1").get();
    return true;
  }

  async disconnect(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    this.#db.close();
  }
}
