import { EventEmitter } from "node:events";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { KeyvStoreAdapter, StoredData } from "keyv";
import type { ActiveIndex } from "./active-index.ts";
import type { DueQueue } from "./due-heap.ts";
import { EXPIRES_PREFIX, entryHolds } from "./json-keyv.ts";

/** The table of an earlier version (@keyv/sqlite) keeps its name, so its file opens as is. */
const TABLE = "keyv";
const DUE = "due";
const ACTIVE = "active";

/**
 * A Keyv adapter on Node's built-in `node:sqlite` (nothing to compile), with the due-queue
 * and active-index tables beside. WAL with `synchronous=NORMAL`: a crash of the process
 * loses nothing, a power cut may lose the last commits.
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
      // The overdue jobs of the stages named, the k-th of n moved to now + k × window / n.
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

  /** One row per active job under `scope` (a store's key prefix). */
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
   * One indexed row per job under `scope`; `changed_at` and `leased` let a restarted store
   * resume its clock and the steps its last process left unfinished.
   */
  dueQueue(scope: string): DueQueue {
    const due = this.#due;
    return {
      set: (id, at, now, leased = false) =>
        void due.set.run(scope, id, at, Math.floor(now), leased ? 1 : 0),
      delete: (id) => void due.delete.run(scope, id),
      due: (now, limit) => (due.by.all(scope, now, limit) as { id: string }[]).map((row) => row.id),
      // One transaction: a restart's backlog in one commit.
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

  /** Writes `value` (serialized) unless a live row holds `key`; true when it wrote. */
  claim(key: string, value: string, ttlMs: number, now = Date.now()): boolean {
    return Number(this.#claim.run(key, value, now + ttlMs, now).changes) > 0;
  }

  /** Writes `next` only while the live row holds the JSON `expected`, in one transaction. */
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
    // Expiries stay on the wall clock, as Keyv's own: they must mean the same after a restart.
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

/** Creates the tables, or brings a file of an earlier version (@keyv/sqlite) up to date. */
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
  // Columns added later.
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
