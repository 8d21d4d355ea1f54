import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * How often each text occurs in the raw bytes of a SQLite store's files (`x.sqlite`,
 * `x.sqlite-wal`, `x.sqlite-shm`, and any other file named after the database, such as a
 * rollback journal), by file name then text: what a copy of the disk would show, whatever
 * SQLite itself answers. Texts are searched as UTF-8.
 */
export async function occurrencesInStoreFiles(
  databasePath: string,
  texts: readonly string[],
): Promise<Record<string, Record<string, number>>> {
  const dir = dirname(databasePath);
  const name = basename(databasePath);
  const files = (await readdir(dir)).filter((file) => file.startsWith(name)).sort();
  const found: Record<string, Record<string, number>> = {};
  for (const file of files) {
    const bytes = await readFile(join(dir, file));
    found[file] = Object.fromEntries(texts.map((text) => [text, countIn(bytes, text)]));
  }
  return found;
}

/** The total over every file and text of {@link occurrencesInStoreFiles}. */
export function total(found: Record<string, Record<string, number>>): number {
  return Object.values(found)
    .flatMap((counts) => Object.values(counts))
    .reduce((sum, n) => sum + n, 0);
}

function countIn(bytes: Buffer, text: string): number {
  const needle = Buffer.from(text, "utf8");
  let count = 0;
  for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) count += 1;
  return count;
}
