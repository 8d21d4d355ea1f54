import { LRUCache } from "lru-cache";

/**
 * Remembers, in this process, what the bot has already said so that it says it once: an
 * upload neither the store nor the request journal could keep is said lost in its thread
 * once, however many of its events arrive (Slack sends two per upload, and retries each).
 * Forgets after `ttlMs` (Slack's retries end within minutes), and the oldest past `max`.
 */
export class SaidOnce {
  readonly #said: LRUCache<string, true>;

  constructor(options: { ttlMs?: number; max?: number; now?: () => number } = {}) {
    const { now } = options;
    this.#said = new LRUCache<string, true>({
      max: options.max ?? 10_000,
      ttl: options.ttlMs ?? 60 * 60_000,
      // Each read asks the clock (the default keeps one reading for 1 ms, with a timer).
      ttlResolution: 0,
      ...(now === undefined ? {} : { perf: { now } }),
    });
  }

  /** True the first time `key` is asked within the memory's time, false after. */
  first(key: string): boolean {
    if (this.#said.has(key)) return false;
    this.#said.set(key, true);
    return true;
  }
}
