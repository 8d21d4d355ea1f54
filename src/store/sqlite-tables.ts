import type { DatabaseSync } from "node:sqlite";
import { EXPIRES_PREFIX } from "./json-keyv.ts";

/** The table of an earlier version (@keyv/sqlite) keeps its name, so its file opens as is. */
export const TABLE = "keyv";
const DUE = "due";
const ACTIVE = "active";

/** Runs `body` in one transaction, rolled back when it throws. */
export function inTransaction<T>(db: DatabaseSync, body: () => T, begin = "BEGIN"): T {
  db.exec(begin);
  try {
    const result = body();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/** Creates the tables, or brings a file of an earlier version (@keyv/sqlite) up to date. */
export function migrate(db: DatabaseSync): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (key TEXT PRIMARY KEY, value TEXT, expires INTEGER)`,
  );
  if (!hasColumn(db, TABLE, "expires")) {
    inTransaction(db, () => {
      db.exec(`ALTER TABLE ${TABLE} ADD COLUMN expires INTEGER`);
      db.prepare(
        `UPDATE ${TABLE} SET expires = CAST(substr(value, ?, 24) AS INTEGER)
         WHERE substr(value, 1, ?) = ?`,
      ).run(EXPIRES_PREFIX.length + 1, EXPIRES_PREFIX.length, EXPIRES_PREFIX);
    });
  }
  db.exec(
    `CREATE INDEX IF NOT EXISTS ${TABLE}_expires ON ${TABLE} (expires) WHERE expires IS NOT NULL`,
  );
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${DUE} (
       scope TEXT NOT NULL, id TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (scope, id))`,
  );
  // Columns added later.
  if (!hasColumn(db, DUE, "changed_at"))
    db.exec(`ALTER TABLE ${DUE} ADD COLUMN changed_at INTEGER`);
  if (!hasColumn(db, DUE, "leased")) {
    db.exec(`ALTER TABLE ${DUE} ADD COLUMN leased INTEGER NOT NULL DEFAULT 0`);
  }
  db.exec(`CREATE INDEX IF NOT EXISTS ${DUE}_at ON ${DUE} (scope, at)`);
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${ACTIVE} (
       scope TEXT NOT NULL, id TEXT NOT NULL, stage TEXT NOT NULL, PRIMARY KEY (scope, id))`,
  );
  db.exec(`CREATE INDEX IF NOT EXISTS ${ACTIVE}_stage ON ${ACTIVE} (scope, stage)`);
}

function hasColumn(db: DatabaseSync, table: string, name: string): boolean {
  const columns = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
  return columns.some((column) => column.name === name);
}

export type ActiveIndex = ReturnType<typeof sqliteActiveIndex>;
export type DueQueue = ReturnType<typeof sqliteDueQueue>;

/** One row per active job under `scope` (a store's key prefix): id → stage ("" unknown). */
export function sqliteActiveIndex(db: DatabaseSync, scope: string) {
  const set = db.prepare(
    `INSERT INTO ${ACTIVE} (scope, id, stage) VALUES (?, ?, ?)
     ON CONFLICT (scope, id) DO UPDATE SET stage = excluded.stage`,
  );
  const remove = db.prepare(`DELETE FROM ${ACTIVE} WHERE scope = ? AND id = ?`);
  const ids = db.prepare(`SELECT id FROM ${ACTIVE} WHERE scope = ?`);
  const counts = db.prepare(
    `SELECT stage, COUNT(*) AS n FROM ${ACTIVE} WHERE scope = ? AND stage <> '' GROUP BY stage`,
  );
  return {
    set: (id: string, stage: string) => void set.run(scope, id, stage),
    delete: (id: string) => void remove.run(scope, id),
    ids: () => (ids.all(scope) as { id: string }[]).map((row) => row.id),
    counts: (): Record<string, number> =>
      Object.fromEntries(
        (counts.all(scope) as { stage: string; n: number }[]).map((r) => [r.stage, r.n]),
      ),
  };
}

/**
 * One indexed row per job under `scope`; `changed_at` and `leased` let a restarted store
 * resume its clock and the steps its last process left unfinished.
 */
export function sqliteDueQueue(db: DatabaseSync, scope: string) {
  const set = db.prepare(
    `INSERT INTO ${DUE} (scope, id, at, changed_at, leased) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (scope, id) DO UPDATE
     SET at = excluded.at, changed_at = excluded.changed_at, leased = excluded.leased`,
  );
  const remove = db.prepare(`DELETE FROM ${DUE} WHERE scope = ? AND id = ?`);
  const by = db.prepare(`SELECT id FROM ${DUE} WHERE scope = ? AND at <= ? ORDER BY at LIMIT ?`);
  const next = db.prepare(`SELECT MIN(at) AS at FROM ${DUE} WHERE scope = ?`);
  const lastChangedAt = db.prepare(`SELECT MAX(changed_at) AS t FROM ${DUE} WHERE scope = ?`);
  // The overdue jobs of the stages named, the k-th of n moved to now + k × window / n.
  const spread = db.prepare(
    `UPDATE ${DUE} SET at = CAST(:now + o.k * :window / o.n AS INTEGER),
       changed_at = :changed, leased = 0
     FROM (SELECT d.id AS id, ROW_NUMBER() OVER (ORDER BY d.at, d.id) - 1 AS k,
             COUNT(*) OVER () * 1.0 AS n
           FROM ${DUE} d JOIN ${ACTIVE} a ON a.scope = d.scope AND a.id = d.id
           WHERE d.scope = :scope AND d.at <= :now
             AND a.stage IN (SELECT value FROM json_each(:stages))) AS o
     WHERE ${DUE}.scope = :scope AND ${DUE}.id = o.id`,
  );
  const resumeLeased = db.prepare(
    `UPDATE ${DUE} SET at = ?, changed_at = ?, leased = 0
     WHERE scope = ? AND leased = 1 AND at > ?`,
  );
  return {
    /** `leased`: a claim moved the job past the lease it took. */
    set: (id: string, at: number, now: number, leased = false) =>
      void set.run(scope, id, at, Math.floor(now), leased ? 1 : 0),
    delete: (id: string) => void remove.run(scope, id),
    due: (now: number, limit: number) =>
      (by.all(scope, now, limit) as { id: string }[]).map((row) => row.id),
    /** `Store.spreadOverdue` in one statement. */
    spreadOverdue: (now: number, windowMs: number, stages: readonly string[], changedAt: number) =>
      Number(
        spread.run({
          now,
          window: windowMs,
          changed: Math.floor(changedAt),
          scope,
          stages: JSON.stringify(stages),
        }).changes,
      ),
    next: () => (next.get(scope) as { at: number | null } | undefined)?.at ?? undefined,
    /** The latest change's time, from which a restarted store's clock resumes. */
    lastChangedAt: () =>
      (lastChangedAt.get(scope) as { t: number | null } | undefined)?.t ?? undefined,
    /** Makes every job a claim moved past its lease due at `now`. */
    resumeLeased: (now: number) => {
      const at = Math.floor(now);
      return Number(resumeLeased.run(at, at, scope, at).changes);
    },
  };
}
