import { chmod, mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import KeyvSqlite from "@keyv/sqlite";
import { createJsonKeyv, EXPIRES_PREFIX } from "./json-keyv.ts";
import { type KeyvBackend, KeyvStore, type KeyvStoreOptions } from "./keyv-store.ts";
import { withTimeout } from "./with-timeout.ts";

/** The table @keyv/sqlite keeps its rows in (its default, named so the sweep can use it). */
const TABLE = "keyv";

/** How long a statement waits for a lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Expired rows, found from the first bytes of each value (`{"expires":<ms>,…`, see
 * `json-keyv.ts`) so that the hourly sweep never parses whole job records. Keyv itself only
 * drops an expired entry when someone reads it, which would keep old notes forever.
 */
const SWEEP_SQL = `DELETE FROM ${TABLE}
  WHERE substr(value, 1, ${EXPIRES_PREFIX.length}) = '${EXPIRES_PREFIX}'
    AND CAST(substr(value, ${EXPIRES_PREFIX.length + 1}, 24) AS INTEGER) < ?
  RETURNING key`;

/**
 * Opens (creating it and its folder when needed) the SQLite file at `filePath`, relative to
 * the working directory. One process owns the file; a restarted process reopens it.
 */
export async function openSqliteStore(
  filePath: string,
  options: KeyvStoreOptions,
): Promise<KeyvStore> {
  const path = resolve(filePath);
  // A folder the store creates is private to the app's user; an existing one is left as is
  // (it may be the operator's own), but the database files themselves are made private.
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const adapter = new KeyvSqlite({
    uri: `sqlite://${path}`,
    table: TABLE,
    busyTimeout: BUSY_TIMEOUT_MS,
  });
  // Failures also reject the query that hit them; without a listener this EventEmitter
  // would throw on the event instead.
  adapter.on("error", () => {});
  try {
    // WAL: a process killed mid-write leaves the database consistent, and readers do not
    // block the writer.
    await adapter.query("PRAGMA journal_mode = WAL");
  } catch (error) {
    await adapter.disconnect().catch(() => {});
    throw new Error(`Cannot open the SQLite store at ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  await makePrivate(path);
  const backend: KeyvBackend = {
    kind: "sqlite",
    keyv: createJsonKeyv(adapter),
    async ping() {
      await withTimeout(adapter.query("SELECT 1"), 2000, "SQLite did not answer in time");
      return true;
    },
    async sweepExpired() {
      const rows = (await adapter.query(SWEEP_SQL, Date.now())) as unknown[];
      return rows.length;
    },
    close: () => adapter.disconnect(),
  };
  const store = new KeyvStore(backend, options);
  // Rows that expired while the process was down go now rather than an hour from now.
  await store.sweepExpired();
  return store;
}

/** Jobs, dialogs and notes are personal data: the database and its WAL files are 0600. */
async function makePrivate(path: string): Promise<void> {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
}
