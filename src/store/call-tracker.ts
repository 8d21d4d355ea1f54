import { StoreClosedError, StoreError, storeFailure } from "./store.ts";

/** A store's calls under way: `close` waits for them, and a call after it rejects. */
export class CallTracker {
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #label: string;
  #closed = false;

  constructor(label: string) {
    this.#label = label;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A backend failure rejects as a {@link StoreError} naming the backend. */
  run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    const result = operation().catch((error: unknown) => {
      if (error instanceof StoreError || error instanceof StoreClosedError) throw error;
      throw storeFailure(`${this.#label} call`, error);
    });
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
    return result;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#inFlight);
  }
}
