import type { Allowance } from "./method-tiers.ts";

interface Waiter {
  urgent: boolean;
  resolve: () => void;
  reject: (reason: unknown) => void;
}

/** Refills at `perMinute`, holds at most `burst`; takers in order of arrival, urgent ones first. */
export class TokenBucket {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #queue: Waiter[] = [];
  #tokens: number;
  #at: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(allowance: Allowance, now: () => number = () => performance.now()) {
    this.#perMs = allowance.perMinute / 60_000;
    this.#burst = Math.max(1, allowance.burst);
    this.#now = now;
    this.#tokens = this.#burst;
    this.#at = now();
  }

  take(signal?: AbortSignal, urgent = false): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter: Waiter = { urgent, resolve, reject };
      const at = urgent ? this.#queue.findIndex((w) => !w.urgent) : -1;
      this.#queue.splice(at === -1 ? this.#queue.length : at, 0, waiter);
      signal?.addEventListener(
        "abort",
        () => {
          const index = this.#queue.indexOf(waiter);
          if (index !== -1) this.#queue.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
      this.#serve();
    });
  }

  /** For a caller who will not wait: a token only when one is free and nobody waits. */
  tryTake(): boolean {
    if (this.#queue.length > 0 || this.waitMs > 0) return false;
    this.#tokens -= 1;
    return true;
  }

  get waitMs(): number {
    this.#refill();
    return this.#tokens >= 1 ? 0 : Math.ceil((1 - this.#tokens) / this.#perMs);
  }

  #serve(): void {
    if (this.#timer !== undefined) return;
    while (this.#queue.length > 0) {
      const wait = this.waitMs;
      if (wait > 0) {
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#serve();
        }, wait);
        return;
      }
      this.#tokens -= 1;
      this.#queue.shift()?.resolve();
    }
  }

  #refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) * this.#perMs);
    this.#at = now;
  }
}
