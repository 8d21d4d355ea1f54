import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeSqliteAdapter } from "../../src/store/node-sqlite-adapter.ts";
import { openSqliteStore } from "../../src/store/sqlite-store.ts";
import type { Store } from "../../src/store/store.ts";
import { occurrencesInStoreFiles, total } from "../../support/helpers/store-file-text.ts";
import { makeTempDir } from "../../support/helpers/temp-files.ts";

/**
 * Deleted text must be gone from the bytes of the store's files, not only from what SQLite
 * answers: measured here by searching the raw `.sqlite`, `-wal` and `-shm` files.
 */

const DELETED = "deleted-transcript-phrase-7c41";
const KEPT = "kept-context-phrase-93be";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let count = 0;
beforeAll(async () => {
  temp = await makeTempDir("mn-store-scrub-");
});
afterAll(async () => {
  await temp.cleanup();
});

function newFile(): string {
  count += 1;
  return join(temp.dir, `scrub-${count}.sqlite`);
}

/** A job as the app saves it: rewritten at each stage, its transcript past one page. */
async function writeJobs(store: Store, phrase: string, jobs: number): Promise<void> {
  for (let j = 0; j < jobs; j += 1) {
    let transcript = "";
    for (let stage = 0; stage < 6; stage += 1) {
      transcript += `speaker_${stage}: we said ${phrase} again. `.repeat(30 + stage * 20);
      await store.set("jobs", `job-${phrase}-${j}`, { stage, transcript }, 60 * 60_000);
    }
    await store.set("settings", `T1:C-${phrase}-${j}`, { contextText: `context ${phrase}` });
  }
}

async function deleteJobs(store: Store, phrase: string, jobs: number): Promise<void> {
  for (let j = 0; j < jobs; j += 1) {
    await store.delete("jobs", `job-${phrase}-${j}`);
    await store.delete("settings", `T1:C-${phrase}-${j}`);
  }
}

describe("SQLite scrub", () => {
  it("leaves no deleted text in the database, its WAL or its index once scrubbed", async () => {
    const file = newFile();
    const store = await openSqliteStore(file, { keyPrefix: "t", sweepIntervalMs: 0 });
    await writeJobs(store, KEPT, 5);
    await writeJobs(store, DELETED, 20);
    await deleteJobs(store, DELETED, 20);
    // Deleted, not yet scrubbed: the WAL (and pages not yet checkpointed) still hold it.
    const deletedOnly = await occurrencesInStoreFiles(file, [DELETED]);
    expect(total(deletedOnly)).toBeGreaterThan(0);

    await store.scrub();
    const scrubbed = await occurrencesInStoreFiles(file, [DELETED, KEPT]);
    expect(Object.keys(scrubbed).sort()).toEqual(
      ["", "-shm", "-wal"].map((suffix) => `scrub-${count}.sqlite${suffix}`).sort(),
    );
    for (const counts of Object.values(scrubbed)) expect(counts[DELETED]).toBe(0);
    // What is kept is still there, in the bytes and through the store.
    expect(total(await occurrencesInStoreFiles(file, [KEPT]))).toBeGreaterThan(0);
    expect(await store.get("settings", `T1:C-${KEPT}-0`)).toEqual({
      contextText: `context ${KEPT}`,
    });
    await store.close();
    expect(total(await occurrencesInStoreFiles(file, [DELETED]))).toBe(0);
  });

  it("zeroes what a second connection deletes: secure_delete is set on every connection", async () => {
    const file = newFile();
    const first = new NodeSqliteAdapter(file);
    const second = new NodeSqliteAdapter(file);
    const value = JSON.stringify({ value: { transcript: `${DELETED} `.repeat(400) } });
    for (let i = 0; i < 10; i += 1) await second.set(`k${i}`, value);
    for (let i = 0; i < 10; i += 1) await second.delete(`k${i}`);
    // A bare checkpoint, no VACUUM: only zeroed pages keep the text out of the database.
    checkpoint(file);
    expect(await occurrencesInStoreFiles(file, [DELETED])).toMatchObject({
      [`scrub-${count}.sqlite`]: { [DELETED]: 0 },
      [`scrub-${count}.sqlite-wal`]: { [DELETED]: 0 },
    });
    await first.disconnect();
    await second.disconnect();

    // The control: the same on a connection without secure_delete leaves the text behind.
    const control = newFile();
    const plain = new DatabaseSync(control);
    plain.exec("PRAGMA journal_mode = WAL");
    plain.exec("CREATE TABLE keyv (key TEXT PRIMARY KEY, value TEXT, expires INTEGER)");
    for (let i = 0; i < 10; i += 1) {
      plain.prepare("INSERT INTO keyv (key, value) VALUES (?, ?)").run(`k${i}`, value);
    }
    plain.exec("DELETE FROM keyv");
    plain.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    plain.close();
    expect(total(await occurrencesInStoreFiles(control, [DELETED]))).toBeGreaterThan(0);
  });

  it("wipes text an earlier version deleted without secure_delete (VACUUM)", async () => {
    const file = newFile();
    const legacy = new DatabaseSync(file);
    legacy.exec("PRAGMA journal_mode = WAL");
    legacy.exec("CREATE TABLE keyv (key TEXT PRIMARY KEY, value TEXT, expires INTEGER)");
    const insert = legacy.prepare("INSERT INTO keyv (key, value) VALUES (?, ?)");
    for (let i = 0; i < 30; i += 1) {
      insert.run(`meeting-notes:jobs:j${i}`, JSON.stringify({ value: `${DELETED} `.repeat(300) }));
    }
    legacy.exec("DELETE FROM keyv");
    legacy.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    legacy.close();
    // In the free pages of the database itself: no checkpoint alone can reach it.
    expect(total(await occurrencesInStoreFiles(file, [DELETED]))).toBeGreaterThan(0);

    const store = await openSqliteStore(file, { keyPrefix: "meeting-notes", sweepIntervalMs: 0 });
    await store.scrub();
    expect(total(await occurrencesInStoreFiles(file, [DELETED]))).toBe(0);
    await store.set("jobs", "after", { ok: true });
    expect(await store.get("jobs", "after")).toEqual({ ok: true });
    await store.close();
  });

  it("fails, rather than claim it is done, while a reader keeps the WAL", async () => {
    const file = newFile();
    const adapter = new NodeSqliteAdapter(file, { busyTimeoutMs: 20 });
    await adapter.set("k", JSON.stringify({ value: DELETED }));
    const reader = new DatabaseSync(file);
    reader.exec("BEGIN");
    reader.prepare("SELECT COUNT(*) FROM keyv").get();
    await adapter.delete("k");
    expect(() => adapter.scrub()).toThrow(/write-ahead log/);
    reader.exec("COMMIT");
    reader.close();
    adapter.scrub();
    expect(total(await occurrencesInStoreFiles(file, [DELETED]))).toBe(0);
    await adapter.disconnect();
  });
});

function checkpoint(file: string): void {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
}
