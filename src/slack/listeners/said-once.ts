/**
 * Remembers, in this process, what the bot has already said so that it says it once: an
 * upload neither the store nor the request journal could keep is said lost in its thread
 * once, however many of its events arrive (Slack sends two per upload, and retries each).
 * Forgets after `ttlMs` (Slack's retries end within minutes), and the oldest past `max`.
 */
export class SaidOnce {
  readonly #at = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: { ttlMs?: number; max?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? 60 * 60_000;
    this.#max = options.max ?? 10_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** True the first time `key` is asked within the memory's time, false after. */
  first(key: string): boolean {
    const now = this.#now();
    const said = this.#at.get(key);
    if (said !== undefined && now - said < this.#ttlMs) return false;
    this.#at.delete(key);
    this.#at.set(key, now);
    // Insertion order is age order: the oldest go first.
    for (const old of this.#at.keys()) {
      if (this.#at.size <= this.#max) break;
      this.#at.delete(old);
    }
    return true;
  }
}
