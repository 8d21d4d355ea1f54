/** Work under way (Slack requests, an install's stops): shutdown and `idle` wait for none to be left. */
export class InFlight {
  #count = 0;
  #waiters: (() => void)[] = [];

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

  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
