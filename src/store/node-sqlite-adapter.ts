import { EventEmitter } from "node:events";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { KeyvStoreAdapter, StoredData } from "keyv";
import type { ActiveIndex } from "./active-index.ts";
import type { DueQueue } from "./due-heap.ts";
import { EXPIRES_PREFIX, entryHolds } from "./json-keyv.ts";

/** The table of an earlier version (@keyv/sqlite) keeps its name, so its file opens as is. */
const TABLE = "keyv";
/** When each active job is next due, per store prefix. */
const DUE = "due";
/** The active jobs and their stages, per store prefix. */
const ACTIVE = "active";

/**
 * A Keyv storage adapter on Node's built-in `node:sqlite`: no native module to compile,
 * nothing to install. One table of `key`, `value` (the serialized entry) and `expires`
 * (ms since the epoch, indexed), so deleting expired rows is one indexed statement.
 *
 * Statements run synchronously on the event loop. They are small (one row by primary key)
 * and the database runs in WAL mode with `synchronous=NORMAL`: a commit appends to the
 * log without an fsync, which SQLite does at checkpoints. A crash of the process loses
 * nothing; a power cut may lose the last commits, as with any WAL database in that mode.
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
  readonly #active: {
    set: StatementSync;
    delete: StatementSync;
    ids: StatementSync;
    stageOf: StatementSync;
    counts: StatementSync;
  };
  readonly #due: {
    set: StatementSync;
    delete: StatementSync;
    by: StatementSync;
    next: StatementSync;
    lastChangedAt: StatementSync;
    resumeLeased: StatementSync;
    spread: StatementSync;
  };
  #open = true;

  constructor(path: string, options: { busyTimeoutMs?: number } = {}) {
    super();
    this.#db = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 5_000 });
    this.#db.exec("PRAGMA journal_mode = WAL");
    this.#db.exec("PRAGMA synchronous = NORMAL");
    // Off by default, and a setting of the connection, not of the file: every connection
    // that writes must turn it on, or the rows it deletes stay readable in freed pages.
    // On, a delete overwrites the row's bytes (and the pages it frees) with zeros.
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
    // Takes the key when it is free or its row has expired (not yet swept); one statement,
    // so two claims never both win, whatever else the event loop runs between them.
    this.#claim = this.#db.prepare(
      `INSERT INTO ${TABLE} (key, value, expires) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires
       WHERE ${TABLE}.expires IS NOT NULL AND ${TABLE}.expires <= ?`,
    );
    // GLOB, unlike LIKE, is case-sensitive: a prefix pattern is one range of the key index.
    this.#keys = this.#db.prepare(`SELECT key FROM ${TABLE} WHERE key GLOB ?`);
    this.#active = {
      set: this.#db.prepare(
        `INSERT INTO ${ACTIVE} (scope, id, stage) VALUES (?, ?, ?)
         ON CONFLICT (scope, id) DO UPDATE SET stage = excluded.stage`,
      ),
      delete: this.#db.prepare(`DELETE FROM ${ACTIVE} WHERE scope = ? AND id = ?`),
      ids: this.#db.prepare(`SELECT id FROM ${ACTIVE} WHERE scope = ?`),
      stageOf: this.#db.prepare(`SELECT stage FROM ${ACTIVE} WHERE scope = ? AND id = ?`),
      counts: this.#db.prepare(
        `SELECT stage, COUNT(*) AS n FROM ${ACTIVE} WHERE scope = ? AND stage <> '' GROUP BY stage`,
      ),
    };
    this.#due = {
      set: this.#db.prepare(
        `INSERT INTO ${DUE} (scope, id, at, changed_at, leased) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (scope, id) DO UPDATE
         SET at = excluded.at, changed_at = excluded.changed_at, leased = excluded.leased`,
      ),
      delete: this.#db.prepare(`DELETE FROM ${DUE} WHERE scope = ? AND id = ?`),
      by: this.#db.prepare(`SELECT id FROM ${DUE} WHERE scope = ? AND at <= ? ORDER BY at LIMIT ?`),
      next: this.#db.prepare(`SELECT MIN(at) AS at FROM ${DUE} WHERE scope = ?`),
      lastChangedAt: this.#db.prepare(`SELECT MAX(changed_at) AS t FROM ${DUE} WHERE scope = ?`),
      // The overdue jobs of the stages named (a JSON array), numbered k = 0… in the order
      // they fell due, each moved to now + k × window / n: one pass, one statement.
      spread: this.#db.prepare(
        `UPDATE ${DUE} SET at = CAST(:now + o.k * :window / o.n AS INTEGER),
           changed_at = :changed, leased = 0
         FROM (SELECT d.id AS id, ROW_NUMBER() OVER (ORDER BY d.at, d.id) - 1 AS k,
                 COUNT(*) OVER () * 1.0 AS n
               FROM ${DUE} d JOIN ${ACTIVE} a ON a.scope = d.scope AND a.id = d.id
               WHERE d.scope = :scope AND d.at <= :now
                 AND a.stage IN (SELECT value FROM json_each(:stages))) AS o
         WHERE ${DUE}.scope = :scope AND ${DUE}.id = o.id`,
      ),
      resumeLeased: this.#db.prepare(
        `UPDATE ${DUE} SET at = ?, changed_at = ?, leased = 0
         WHERE scope = ? AND leased = 1 AND at > ?`,
      ),
    };
  }

  /**
   * The active jobs under `scope` (a store's key prefix), one row each: a stage change
   * writes one row, a count is one pass over the (scope, stage) index.
   */
  activeIndex(scope: string): ActiveIndex {
    const active = this.#active;
    return {
      set: (id, stage) => void active.set.run(scope, id, stage),
      delete: (id) => void active.delete.run(scope, id),
      ids: () => (active.ids.all(scope) as { id: string }[]).map((row) => row.id),
      stageOf: (id) => (active.stageOf.get(scope, id) as { stage: string } | undefined)?.stage,
      counts: () =>
        Object.fromEntries(
          (active.counts.all(scope) as { stage: string; n: number }[]).map((r) => [r.stage, r.n]),
        ),
    };
  }

  /**
   * The due queue of the jobs under `scope` (a store's key prefix): one indexed row per
   * job, so finding the jobs due is one index range, whatever the number of jobs. Each row
   * also says when it was last changed and whether a claim moved it past its lease: what a
   * restarted store needs to resume its clock and the steps its last process left unfinished.
   */
  dueQueue(scope: string): DueQueue {
    const due = this.#due;
    return {
      set: (id, at, now, leased = false) =>
        void due.set.run(scope, id, at, Math.floor(now), leased ? 1 : 0),
      delete: (id) => void due.delete.run(scope, id),
      due: (now, limit) => (due.by.all(scope, now, limit) as { id: string }[]).map((row) => row.id),
      // One transaction: thousands of rows (a restart's backlog) in one commit, not one each.
      setMany: (entries, now) => {
        this.#db.exec("BEGIN");
        try {
          for (const [id, at] of entries) due.set.run(scope, id, at, Math.floor(now), 0);
          this.#db.exec("COMMIT");
        } catch (error) {
          this.#db.exec("ROLLBACK");
          throw error;
        }
      },
      spreadOverdue: (now, windowMs, stages, changedAt) =>
        Number(
          due.spread.run({
            now,
            window: windowMs,
            changed: Math.floor(changedAt),
            scope,
            stages: JSON.stringify(stages),
          }).changes,
        ),
      next: () => {
        const row = due.next.get(scope) as { at: number | null } | undefined;
        return row?.at ?? undefined;
      },
      lastChangedAt: () => {
        const row = due.lastChangedAt.get(scope) as { t: number | null } | undefined;
        return row?.t ?? undefined;
      },
      resumeLeased: (now) => {
        const at = Math.floor(now);
        return Number(due.resumeLeased.run(at, at, scope, at).changes);
      },
    };
  }

  /**
   * Writes `value` under `key` for `ttlMs` unless a live row holds the key: true when this
   * call wrote it. `value` is stored as given (already serialized).
   */
  claim(key: string, value: string, ttlMs: number, now = Date.now()): boolean {
    return Number(this.#claim.run(key, value, now + ttlMs, now).changes) > 0;
  }

  /**
   * Writes `next` (serialized) under `key` only while its live row holds the value whose
   * JSON is `expected`: the read and the write in one transaction. True when it wrote.
   */
  compareAndSet(key: string, expected: string, next: string, expires?: number, now = Date.now()) {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const row = this.#get.get(key) as { value: string } | undefined;
      const holds = row !== undefined && entryHolds(row.value, expected, now);
      if (holds) this.#set.run(key, next, expires ?? null);
      this.#db.exec("COMMIT");
      return holds;
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const row = this.#get.get(key) as { value: string } | undefined;
    return row?.value as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<StoredData<Value | undefined>[]> {
    return Promise.all(keys.map((key) => this.get<Value>(key)));
  }

  async set(key: string, value: unknown, ttl?: number): Promise<void> {
    // Expiry times stay on the wall clock, as Keyv's own (in the serialized value) are: they
    // must mean the same after a restart, and retention is days long, so a clock set a few
    // minutes forward or back moves an expiry by as much, which is harmless.
    const expires = ttl === undefined || ttl <= 0 ? null : Date.now() + ttl;
    this.#set.run(key, String(value), expires);
  }

  async delete(key: string): Promise<boolean> {
    return Number(this.#delete.run(key).changes) > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    let deleted = false;
    for (const key of keys) deleted = (await this.delete(key)) || deleted;
    return deleted;
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async clear(): Promise<void> {
    this.#db.exec(`DELETE FROM ${TABLE}`);
  }

  /** The keys that start with `prefix`, expired rows not yet swept included. */
  keys(prefix: string): string[] {
    const pattern = `${prefix.replace(/[*?[]/g, (c) => `[${c}]`)}*`;
    return (this.#keys.all(pattern) as { key: string }[]).map((row) => row.key);
  }

  /** Deletes the rows whose TTL has passed; returns how many. */
  sweepExpired(now = Date.now()): number {
    return Number(this.#sweep.run(now).changes);
  }

  /**
   * Wipes deleted rows from the files. `secure_delete` zeroes them in the pages a delete
   * writes, but in WAL mode those pages go to the log: the database file keeps the old
   * ones until a checkpoint, and the log keeps old frames until it is truncated. So: copy
   * every page into the database and empty the log (TRUNCATE). Pages freed while
   * `secure_delete` was off (a file written by an earlier version) still hold their text:
   * when any page is free, VACUUM rebuilds the file without free pages, and the log it
   * wrote is emptied the same way. Throws when a reader kept the log from being emptied.
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

  /** A trivial query: the database file is open and readable. */
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

/**
 * Creates the table, or brings one written by @keyv/sqlite (key and value only, the expiry
 * inside the serialized value) up to date: an `expires` column filled from the values'
 * first bytes, and its index.
 */
function migrate(db: DatabaseSync): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (key TEXT PRIMARY KEY, value TEXT, expires INTEGER)`,
  );
  const columns = db.prepare(`PRAGMA table_info(${TABLE})`).all() as { name: string }[];
  if (!columns.some((column) => column.name === "expires")) {
    db.exec("BEGIN");
    try {
      db.exec(`ALTER TABLE ${TABLE} ADD COLUMN expires INTEGER`);
      db.prepare(
        `UPDATE ${TABLE} SET expires = CAST(substr(value, ?, 24) AS INTEGER)
         WHERE substr(value, 1, ?) = ?`,
      ).run(EXPIRES_PREFIX.length + 1, EXPIRES_PREFIX.length, EXPIRES_PREFIX);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
  db.exec(
    `CREATE INDEX IF NOT EXISTS ${TABLE}_expires ON ${TABLE} (expires) WHERE expires IS NOT NULL`,
  );
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${DUE} (
       scope TEXT NOT NULL, id TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (scope, id))`,
  );
  // Added later: rows of an earlier version have no time of change and no lease mark.
  const dueColumns = db.prepare(`PRAGMA table_info(${DUE})`).all() as { name: string }[];
  if (!dueColumns.some((column) => column.name === "changed_at")) {
    db.exec(`ALTER TABLE ${DUE} ADD COLUMN changed_at INTEGER`);
  }
  if (!dueColumns.some((column) => column.name === "leased")) {
    db.exec(`ALTER TABLE ${DUE} ADD COLUMN leased INTEGER NOT NULL DEFAULT 0`);
  }
  db.exec(`CREATE INDEX IF NOT EXISTS ${DUE}_at ON ${DUE} (scope, at)`);
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${ACTIVE} (
       scope TEXT NOT NULL, id TEXT NOT NULL, stage TEXT NOT NULL, PRIMARY KEY (scope, id))`,
  );
  db.exec(`CREATE INDEX IF NOT EXISTS ${ACTIVE}_stage ON ${ACTIVE} (scope, stage)`);
}
