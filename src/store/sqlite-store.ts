import { chmod, mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { StartupError } from "../startup-error.ts";
import type { KeyvStoreOptions } from "./keyv-backend.ts";
import { KeyvStore } from "./keyv-store.ts";
import { NodeSqliteAdapter } from "./node-sqlite-adapter.ts";

/** Opens (creating it and its folder) the SQLite file at `filePath`; one process owns it. */
export async function openSqliteStore(
  filePath: string,
  options: KeyvStoreOptions,
): Promise<KeyvStore> {
  const path = resolve(filePath);
  // A folder made here is private; an existing one may be the operator's own.
  let adapter: NodeSqliteAdapter;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    adapter = new NodeSqliteAdapter(path);
  } catch (error) {
    throw unopenable(path, error);
  }
  await makePrivate(path);
  const store = new KeyvStore("sqlite", adapter, options);
  await store.moveLegacyActiveIndex();
  // Rows that expired while the process was down go now rather than an hour from now.
  await store.sweepExpired();
  return store;
}

/** The same store in an in-memory SQLite database, for tests: nothing outlives the process. */
export function openMemoryStore(options: KeyvStoreOptions): KeyvStore {
  return new KeyvStore("memory", new NodeSqliteAdapter(":memory:"), options);
}

function unopenable(path: string, error: unknown): StartupError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === undefined ? (error as Error).message : `${code}: ${(error as Error).message}`;
  return new StartupError(
    `STORE_URL names a SQLite file the bot cannot open or create (${path}; ${reason}): give the bot's user a folder it may write to, or set STORE_URL to sqlite://PATH in one.`,
  );
}

/** Jobs, dialogs and notes are personal data: the database and its WAL files are 0600. */
async function makePrivate(path: string): Promise<void> {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
}
