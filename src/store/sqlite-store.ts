import { chmod, mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { StartupError } from "../startup-error.ts";
import { createJsonKeyv, entryOf, serializeEntry } from "./json-keyv.ts";
import type { KeyvBackend, KeyvStoreOptions } from "./keyv-backend.ts";
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
  const backend: KeyvBackend = {
    kind: "sqlite",
    keyv: createJsonKeyv(adapter),
    ping: async () => adapter.ping(),
    // Keyv drops an expired entry only when it is read: the sweep deletes the rest.
    sweepExpired: async () => adapter.sweepExpired(),
    claim: async (key, ttlMs) => {
      const now = Date.now();
      return adapter.claim(key, serializeEntry({ value: 1, expires: now + ttlMs }), ttlMs, now);
    },
    compareAndSet: async (key, expected, next, ttlMs) => {
      const now = Date.now();
      const entry = entryOf(next, ttlMs, now);
      return adapter.compareAndSet(key, expected, entry.text, entry.expires, now);
    },
    dueQueue: (scope) => adapter.dueQueue(scope),
    activeIndex: (scope) => adapter.activeIndex(scope),
    keys: async (prefix) => adapter.keys(prefix),
    scrub: async () => adapter.scrub(),
    close: () => adapter.disconnect(),
  };
  const store = new KeyvStore(backend, options);
  await moveLegacyActiveIndex(backend, options.keyPrefix);
  // Rows that expired while the process was down go now rather than an hour from now.
  await store.sweepExpired();
  return store;
}

function unopenable(path: string, error: unknown): StartupError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === undefined ? (error as Error).message : `${code}: ${(error as Error).message}`;
  return new StartupError(
    `STORE_URL names a SQLite file the bot cannot open or create (${path}; ${reason}): give the bot's user a folder it may write to, or set STORE_URL to sqlite://PATH in one.`,
  );
}

/** Moves an active index of an earlier version (a JSON value) into the backend's, once. */
async function moveLegacyActiveIndex(backend: KeyvBackend, prefix: string): Promise<void> {
  const { keyv } = backend;
  const active = backend.activeIndex(prefix);
  const stagesKey = `${prefix}:active-stages`;
  const idsKey = `${prefix}:active`;
  const legacy = (await keyv.get<string[]>(idsKey)) ?? [];
  const stages = (await keyv.get<Record<string, string>>(stagesKey)) ?? {};
  for (const id of legacy) if (!Object.hasOwn(stages, id)) active.set(id, "");
  for (const [id, stage] of Object.entries(stages)) active.set(id, stage);
  if (legacy.length > 0) await keyv.delete(idsKey);
  if (Object.keys(stages).length > 0) await keyv.delete(stagesKey);
}

/** Jobs, dialogs and notes are personal data: the database and its WAL files are 0600. */
async function makePrivate(path: string): Promise<void> {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
}
