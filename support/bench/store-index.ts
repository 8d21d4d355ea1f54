import { DatabaseSync } from "node:sqlite";
import { openStore } from "../../src/store/index.ts";
import { makeTempDir } from "../helpers/temp-files.ts";
import type { RunFacts } from "./report.ts";
import { median, round } from "./support.ts";

/** The bounds `test/store/sqlite-store.test.ts` held until they moved here. */
export const STORE_INDEX_TARGETS = { perWriteMs: 100, listMs: 500 };

export interface StoreIndexResult {
  ids: number;
  runs: number;
  /** One `addActive` or `removeActive` on the SQLite store holding `ids` active ids (median). */
  perWriteMs: number;
  /** One `listActive` of them (median). */
  listMs: number;
}

/**
 * The SQLite store's active-job index at `ids` entries, as a store that has run a while holds
 * it: 100 ids added and 100 removed one by one, then the whole index listed; `runs` fresh
 * stores, medians. A store that paged through the table would take seconds per write.
 */
export async function benchStoreIndex(ids: number, runs: number): Promise<StoreIndexResult> {
  const temp = await makeTempDir("mn-bench-index-");
  const writes: number[] = [];
  const lists: number[] = [];
  try {
    for (let run = 0; run < runs; run += 1) {
      const file = `${temp.dir}/active-${run}.sqlite`;
      await (await openStore(`sqlite://${file}`)).close();
      // Written in one go: one by one, the set-up alone took 30 s at 5,000.
      const raw = new DatabaseSync(file);
      const seeded = Array.from({ length: ids }, (_, i) => `job-${String(i).padStart(6, "0")}`);
      const index = Object.fromEntries(seeded.map((id) => [id, "transcribing"]));
      raw
        .prepare("INSERT INTO keyv (key, value) VALUES (?, ?)")
        .run("meeting-notes:active-stages", JSON.stringify({ value: index }));
      raw.close();
      const store = await openStore(`sqlite://${file}`);
      const started = performance.now();
      for (let i = 0; i < 100; i += 1) await store.addActive(`extra-${i}`, "queued");
      for (let i = 0; i < 100; i += 1) await store.removeActive(seeded[i] ?? "");
      writes.push((performance.now() - started) / 200);
      const listStarted = performance.now();
      const listed = await store.listActive();
      lists.push(performance.now() - listStarted);
      if (listed.length !== ids) throw new Error(`listed ${listed.length} of ${ids} ids`);
      await store.close();
    }
  } finally {
    await temp.cleanup();
  }
  return { ids, runs, perWriteMs: round(median(writes), 2), listMs: round(median(lists), 2) };
}

export function renderStoreIndex(r: StoreIndexResult, at: RunFacts): string {
  const t = STORE_INDEX_TARGETS;
  const met = r.perWriteMs <= t.perWriteMs && r.listMs <= t.listMs;
  return [
    "## 9. The SQLite store's active-job index",
    "",
    `Measured ${at.date} UTC, load average ${at.load.toFixed(1)} at the start.`,
    "",
    `A SQLite store holding ${r.ids} active ids (as one that has run a while holds them):`,
    `100 ids added and 100 removed one by one, then the index listed; ${r.runs} fresh`,
    "stores, medians. The bounds catch a store that pages through the table (seconds), not a",
    "busy CPU; they were the unit test's until it kept to what the store does.",
    "",
    `| active ids | per write (ms) | list (ms) | target ≤ ${t.perWriteMs} ms a write, ≤ ${t.listMs} ms a list |`,
    "|---:|---:|---:|---|",
    `| ${r.ids} | ${r.perWriteMs} | ${r.listMs} | ${met ? "met" : "**missed**"} |`,
  ].join("\n");
}
