import { StoreClosedError, StoreError } from "./store.ts";

/**
 * The calls a store has under way, and whether it is closed: `close` waits for every call
 * started before it, and a call after it rejects with {@link StoreClosedError}.
 */
export class CallTracker {
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #label: string;
  #closed = false;

  /** `label` names the backend in errors ("SQLite"). */
  constructor(label: string) {
    this.#label = label;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Runs one call, counted until it settles. A backend failure — SQLite's "database or disk
   * is full", "attempt to write a readonly database" — rejects as a {@link StoreError}
   * naming the backend: never a silent success.
   */
  run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    const result = operation().catch((error: unknown) => {
      if (error instanceof StoreError || error instanceof StoreClosedError) throw error;
      const reason = error instanceof Error ? error.message || error.name : String(error);
      throw new StoreError(`${this.#label} call failed: ${reason}`, { cause: error });
    });
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
    return result;
  }

  /** Takes no more calls, and resolves once those under way have settled. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#inFlight);
  }
}
