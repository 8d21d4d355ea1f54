import { mkdir, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "pino";
import type { z } from "zod";

export interface JournalEntry {
  id: string;
  at: number;
}

export interface RequestJournalOptions<T extends JournalEntry> {
  /** Beside the store (the SQLite file's folder, or the temp folder for Redis). */
  path: string;
  schema: z.ZodType<T>;
  logger: Logger;
  maxBytes?: number;
  /** Two entries of one request (an upload delivered twice) are merged, not appended. */
  keyOf?: (entry: T) => string;
  merge?: (kept: T, again: T) => T;
}

/** About a thousand uploads with their text: far more than an outage should see. */
const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * Requests Slack was told were taken but the store could not record, fsynced before `keep`
 * resolves so a killed process finds them. They hold personal data: 0600, pruned by `settle`.
 */
export class RequestJournal<T extends JournalEntry> {
  readonly #o: Required<Omit<RequestJournalOptions<T>, "keyOf">> &
    Pick<RequestJournalOptions<T>, "keyOf">;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: RequestJournalOptions<T>) {
    this.#o = { maxBytes: DEFAULT_MAX_BYTES, merge: (kept) => kept, ...options };
  }

  get path(): string {
    return this.#o.path;
  }

  /** False when the entry cannot be kept (full, unwritable). */
  keep(entry: T): Promise<boolean> {
    return this.#serial(async () => {
      const line = `${JSON.stringify(entry)}\n`;
      try {
        if (await this.#merged(entry)) return true;
        const size = await stat(this.#o.path).then(
          (s) => s.size,
          () => 0,
        );
        if (size + Buffer.byteLength(line) > this.#o.maxBytes) {
          this.#o.logger.error({ path: this.#o.path, size }, "request journal full: not kept");
          return false;
        }
        await appendSynced(this.#o.path, line, size === 0);
        return true;
      } catch (error) {
        this.#o.logger.error({ err: error, path: this.#o.path }, "request journal unwritable");
        return false;
      }
    });
  }

  async #merged(entry: T): Promise<boolean> {
    const { keyOf } = this.#o;
    if (keyOf === undefined) return false;
    const entries = await this.#entries();
    const same = entries.find((kept) => keyOf(kept) === keyOf(entry));
    if (same === undefined) return false;
    const merged = this.#o.merge(same, entry);
    if (merged !== same) await this.#rewrite(entries.map((e) => (e === same ? merged : e)));
    return true;
  }

  read(): Promise<T[]> {
    return this.#serial(() => this.#entries());
  }

  /** Keeps whatever was appended meanwhile; deletes the file when nothing is left. */
  settle(done: ReadonlySet<string>, changed: ReadonlyMap<string, T>): Promise<number> {
    return this.#serial(async () => {
      const entries = await this.#entries();
      const left = entries
        .filter((entry) => !done.has(entry.id))
        .map((entry) => changed.get(entry.id) ?? entry);
      if (left.length === entries.length && changed.size === 0) return left.length;
      await this.#rewrite(left);
      return left.length;
    });
  }

  async #rewrite(entries: T[]): Promise<void> {
    if (entries.length === 0) {
      await unlink(this.#o.path).catch(() => undefined);
      return;
    }
    const next = `${this.#o.path}.next`;
    await writeSynced(next, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
    await rename(next, this.#o.path);
    await syncFolder(this.#o.path);
  }

  async #entries(): Promise<T[]> {
    const text = await readFile(this.#o.path, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return "";
      throw error;
    });
    const byId = new Map<string, T>();
    let unreadable = 0;
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      const parsed = this.#o.schema.safeParse(parseJson(line));
      if (parsed.success) byId.set(parsed.data.id, parsed.data);
      else unreadable += 1;
    }
    // A line cut short by a crash mid-write, or from another version: never trusted.
    if (unreadable > 0) {
      this.#o.logger.warn({ path: this.#o.path, unreadable }, "request journal lines dropped");
    }
    return [...byId.values()];
  }

  #serial<R>(work: () => Promise<R>): Promise<R> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

async function appendSynced(path: string, text: string, isNew: boolean): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeSynced(path, text, "a");
  if (isNew) await syncFolder(path);
}

async function writeSynced(path: string, text: string, flags: "w" | "a" = "w"): Promise<void> {
  const handle = await open(path, flags, 0o600);
  try {
    await handle.chmod(0o600);
    await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** So a file created or renamed there survives a crash. */
async function syncFolder(path: string): Promise<void> {
  const folder = await open(dirname(path), "r").catch(() => undefined);
  if (folder === undefined) return;
  await folder.sync().catch(() => undefined);
  await folder.close();
}
