/** Past this many entries an insertion first drops the expired ones (then the bar doubles). */
const PRUNE_ABOVE = 1024;

/**
 * Short-lived "seen once" keys in a Map, for the memory and SQLite backends (one process owns
 * them, so a Map is the whole truth). Used for request signatures: one per Slack request, so
 * they are never written to SQLite. The Map stays bounded: once it holds more than a bar,
 * the next claim sweeps out expired keys and the bar becomes twice what is left, so sweeps
 * cost O(1) per claim on average. Every method is synchronous, which makes it atomic.
 */
export class BriefClaims {
  readonly #expiries = new Map<string, number>();
  readonly #now: () => number;
  #pruneAbove = PRUNE_ABOVE;

  /** `now`: a monotonic clock (the store's), never the wall clock, which may jump. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** True for the first claim of `key` while it lives; false while an earlier one does. */
  claim(key: string, ttlMs: number): boolean {
    const now = this.#now();
    const expires = this.#expiries.get(key);
    if (expires !== undefined && expires > now) return false;
    if (this.#expiries.size >= this.#pruneAbove) this.#prune(now);
    this.#expiries.set(key, now + ttlMs);
    return true;
  }

  /** How many keys are held (expired ones included until the next sweep). */
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
