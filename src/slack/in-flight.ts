/**
 * Counts work under way (Slack requests being handled) and tells when there is none: the
 * shutdown waits for it before closing the store, and tests wait for it instead of sleeping.
 */
export class InFlight {
  #count = 0;
  #waiters: (() => void)[] = [];

  /** Runs `work`, counted while it runs. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.#count += 1;
    try {
      return await work();
    } finally {
      this.#count -= 1;
      if (this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
    }
  }

  get size(): number {
    return this.#count;
  }

  /** Resolves once nothing is under way (at once when nothing is). */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
