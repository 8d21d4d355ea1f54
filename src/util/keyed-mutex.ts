/** Runs async sections one at a time per key, in call order: atomic within one process. */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, section: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const { promise: done, resolve } = Promise.withResolvers<void>();
    // `done` only ever resolves, so a failed section never blocks the ones after it.
    const tail = previous.then(() => done);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await section();
    } finally {
      resolve();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Resolves once every section queued so far has settled. */
  async idle(): Promise<void> {
    await Promise.all(this.#tails.values());
  }
}
