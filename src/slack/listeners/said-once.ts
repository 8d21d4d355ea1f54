import { LRUCache } from "lru-cache";

/**
 * An upload neither the store nor the journal could keep is said lost once, however many of its
 * events arrive; Slack's retries end within minutes.
 */
export class SaidOnce {
  readonly #said: LRUCache<string, true>;

  constructor(options: { ttlMs?: number; max?: number; now?: () => number } = {}) {
    const { now } = options;
    this.#said = new LRUCache<string, true>({
      max: options.max ?? 10_000,
      ttl: options.ttlMs ?? 60 * 60_000,
      // Each read asks the clock: the default caches a reading and keeps a timer.
      ttlResolution: 0,
      ...(now === undefined ? {} : { perf: { now } }),
    });
  }

  first(key: string): boolean {
    if (this.#said.has(key)) return false;
    this.#said.set(key, true);
    return true;
  }
}
