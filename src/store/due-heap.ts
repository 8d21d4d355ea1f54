/** When jobs are next due, in one process (memory and SQLite stores); synchronous. */
export interface DueQueue {
  /** `leased`: a claim moved the job past the lease it took. */
  set(id: string, at: number, now: number, leased?: boolean): void;
  delete(id: string): void;
  due(now: number, limit: number): string[];
  setMany(entries: readonly (readonly [id: string, at: number])[], now: number): void;
  /** SQLite only: `Store.spreadOverdue` in one statement. */
  spreadOverdue?(
    now: number,
    windowMs: number,
    stages: readonly string[],
    changedAt: number,
  ): number;
  next(): number | undefined;
  /** On disk only: the latest change's time, from which a restarted store's clock resumes. */
  lastChangedAt?(): number | undefined;
  /** On disk only: makes every job a claim moved past its lease due at `now`. */
  resumeLeased?(now: number): number;
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
