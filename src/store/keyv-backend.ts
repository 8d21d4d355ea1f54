import type { Logger } from "pino";
import { StoreClosedError, StoreError, storeFailure } from "./store.ts";
import type { ClockSources } from "./store-clock.ts";

export interface KeyvStoreOptions {
  keyPrefix: string;
  logger?: Logger;
  /** Default hourly; 0: never. */
  sweepIntervalMs?: number;
  clock?: ClockSources;
}

/** Runs `sweep` every `intervalMs` (0: never) on a timer that never keeps the process up. */
export function startSweep(
  sweep: () => Promise<number>,
  intervalMs: number,
  logger: Logger | undefined,
): NodeJS.Timeout | undefined {
  if (intervalMs <= 0) return undefined;
  let sweeping = false;
  const timer = setInterval(async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const removed = await sweep();
      if (removed > 0) logger?.debug({ removed }, "store: expired entries deleted");
    } catch (error) {
      logger?.warn({ err: error }, "store: deleting expired entries failed");
    } finally {
      sweeping = false;
    }
  }, intervalMs);
  timer.unref();
  return timer;
}

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
