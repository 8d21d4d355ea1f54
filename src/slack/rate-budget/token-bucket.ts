import { setTimeout as sleep } from "node:timers/promises";
import type { Allowance } from "./method-tiers.ts";

/**
 * A budget of calls that refills at `perMinute` and holds at most `burst`: takers wait
 * their turn in order (one chain of waits), so a busy method serves its callers first come,
 * first served and never lets a late caller overtake.
 */
export class TokenBucket {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;
  #turn: Promise<void> = Promise.resolve();

  constructor(allowance: Allowance, now: () => number = Date.now) {
    this.#perMs = allowance.perMinute / 60_000;
    this.#burst = Math.max(1, allowance.burst);
    this.#now = now;
    this.#tokens = this.#burst;
    this.#at = now();
  }

  /** Resolves once a call may go (taking its token); rejects when `signal` aborts first. */
  take(signal?: AbortSignal): Promise<void> {
    const mine = this.#turn.then(() => this.#wait(signal));
    // The next taker waits for this one, however it ended.
    this.#turn = mine.catch(() => undefined);
    return mine;
  }

  /** How long a taker arriving now would wait, in ms (0: at once). Nothing is taken. */
  get waitMs(): number {
    this.#refill();
    return this.#tokens >= 1 ? 0 : Math.ceil((1 - this.#tokens) / this.#perMs);
  }

  async #wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.waitMs;
      if (wait === 0) {
        this.#tokens -= 1;
        return;
      }
      await sleep(wait, undefined, signal === undefined ? {} : { signal });
    }
  }

  #refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) * this.#perMs);
    this.#at = now;
  }
}
