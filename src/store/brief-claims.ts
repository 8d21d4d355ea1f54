/** Past this many entries an insertion first drops the expired ones (then the bar doubles). */
const PRUNE_ABOVE = 1024;

/** Short-lived "seen once" keys of a one-process store, in a Map pruned to stay bounded. */
export class BriefClaims {
  readonly #expiries = new Map<string, number>();
  readonly #now: () => number;
  #pruneAbove = PRUNE_ABOVE;

  /** `now`: a monotonic clock (the store's), never the wall clock, which may jump. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  claim(key: string, ttlMs: number): boolean {
    const now = this.#now();
    const expires = this.#expiries.get(key);
    if (expires !== undefined && expires > now) return false;
    if (this.#expiries.size >= this.#pruneAbove) this.#prune(now);
    this.#expiries.set(key, now + ttlMs);
    return true;
  }

  get size(): number {
    return this.#expiries.size;
  }

  #prune(now: number): void {
    for (const [key, expires] of this.#expiries) {
      if (expires <= now) this.#expiries.delete(key);
    }
    this.#pruneAbove = Math.max(PRUNE_ABOVE, this.#expiries.size * 2);
  }
}
