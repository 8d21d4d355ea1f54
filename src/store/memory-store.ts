import { MapActiveIndex } from "./active-index.ts";
import { DueHeap } from "./due-heap.ts";
import { createJsonKeyv, entryHolds, entryOf, expiresOf } from "./json-keyv.ts";
import type { KeyvStoreOptions } from "./keyv-backend.ts";
import { KeyvStore } from "./keyv-store.ts";

/** A store in a Map, for tests: same behaviour as SQLite, nothing survives the process. */
export function openMemoryStore(options: KeyvStoreOptions): KeyvStore {
  const map = new Map<string, unknown>();
  return new KeyvStore(
    {
      kind: "memory",
      keyv: createJsonKeyv(map),
      ping: async () => true,
      async sweepExpired() {
        // Keyv stamps expiries with the wall clock: compared with the same.
        const now = Date.now();
        let removed = 0;
        for (const [key, value] of map) {
          const expires = typeof value === "string" ? expiresOf(value) : undefined;
          if (expires !== undefined && expires < now) {
            map.delete(key);
            removed += 1;
          }
        }
        return removed;
      },
      // Synchronous between the read and the write: nothing else runs in between.
      compareAndSet: async (key, expected, next, ttlMs) => {
        const now = Date.now();
        const stored = map.get(key);
        if (typeof stored !== "string" || !entryHolds(stored, expected, now)) return false;
        map.set(key, entryOf(next, ttlMs, now).text);
        return true;
      },
      keys: async (prefix) => [...map.keys()].filter((key) => key.startsWith(prefix)),
      dueQueue: () => new DueHeap(),
      activeIndex: () => new MapActiveIndex(),
      close: async () => map.clear(),
    },
    options,
  );
}
