import { createJsonKeyv, entryHolds, entryOf, expiresOf } from "./json-keyv.ts";
import type { KeyvStoreOptions } from "./keyv-backend.ts";
import { KeyvStore } from "./keyv-store.ts";
import type { ActiveIndex, DueQueue } from "./local-queue.ts";

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

/** A map holds the truth; a min-heap finds the earliest, skipping stale nodes (lazy deletion). */
export class DueHeap implements DueQueue {
  readonly #at = new Map<string, number>();
  #heap: { id: string; at: number }[] = [];

  get size(): number {
    return this.#at.size;
  }

  set(id: string, at: number): void {
    if (this.#at.get(id) === at) return;
    this.#at.set(id, at);
    this.#push({ id, at });
    // Stale nodes may pile up under heavy rescheduling: rebuild once they outnumber the live.
    if (this.#heap.length > 2 * this.#at.size + 1024) this.#rebuild();
  }

  delete(id: string): void {
    this.#at.delete(id);
  }

  setMany(entries: readonly (readonly [id: string, at: number])[]): void {
    for (const [id, at] of entries) this.set(id, at);
  }

  due(now: number, limit: number): string[] {
    const out: string[] = [];
    const popped: { id: string; at: number }[] = [];
    const seen = new Set<string>();
    while (out.length < limit) {
      const top = this.#peekLive();
      if (top === undefined || top.at > now) break;
      this.#pop();
      // An id moved away and back has two live nodes: one is enough.
      if (seen.has(top.id)) continue;
      seen.add(top.id);
      popped.push(top);
      out.push(top.id);
    }
    for (const node of popped) this.#push(node);
    return out;
  }

  next(): number | undefined {
    return this.#peekLive()?.at;
  }

  #peekLive(): { id: string; at: number } | undefined {
    for (;;) {
      const top = this.#heap[0];
      if (top === undefined) return undefined;
      if (this.#at.get(top.id) === top.at) return top;
      this.#pop();
    }
  }

  #rebuild(): void {
    this.#heap = [];
    for (const [id, at] of this.#at) this.#push({ id, at });
  }

  #push(node: { id: string; at: number }): void {
    const heap = this.#heap;
    heap.push(node);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as { id: string; at: number };
      if (p.at <= node.at) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = node;
  }

  #pop(): { id: string; at: number } | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const l = heap[left] as { id: string; at: number };
      const r = heap[right];
      const child = r !== undefined && r.at < l.at ? right : left;
      const c = heap[child] as { id: string; at: number };
      if (c.at >= last.at) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}

/** In a Map, with a counter per stage: a count costs O(stages). */
export class MapActiveIndex implements ActiveIndex {
  readonly #stages = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  set(id: string, stage: string): void {
    const before = this.#stages.get(id);
    if (before === stage) return;
    if (before !== undefined) this.#add(before, -1);
    this.#stages.set(id, stage);
    this.#add(stage, 1);
  }

  delete(id: string): void {
    const before = this.#stages.get(id);
    if (before === undefined) return;
    this.#stages.delete(id);
    this.#add(before, -1);
  }

  ids(): string[] {
    return [...this.#stages.keys()];
  }

  stageOf(id: string): string | undefined {
    return this.#stages.get(id);
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const [stage, count] of this.#counts) if (stage !== "" && count > 0) counts[stage] = count;
    return counts;
  }

  #add(stage: string, delta: number): void {
    this.#counts.set(stage, (this.#counts.get(stage) ?? 0) + delta);
  }
}
