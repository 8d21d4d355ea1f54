import type { Logger } from "pino";
import type { Store } from "../../store/index.ts";
import { BACKOFFS, type Backoff, backoffDelayMs } from "../../util/backoff.ts";

export interface GiveBackOptions {
  store: Store;
  logger: Logger;
  now: () => number;
  leaseKey: (jobId: string) => string;
  onGivenBack: () => void;
  backoff?: Backoff;
}

/**
 * Jobs whose step crashed because the store failed (lease held, next
 * due time unwritten), given back once the store answers; else they
 * hide until the lease lapses and a person's click waits as long.
 */
export class GiveBack {
  readonly #o: Required<GiveBackOptions>;
  readonly #pending = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #stopped = false;

  constructor(options: GiveBackOptions) {
    this.#o = { backoff: BACKOFFS.giveBack, ...options };
  }

  add(jobId: string, token: string): void {
    if (this.#stopped) return;
    this.#pending.set(jobId, token);
    this.#arm();
  }

  get size(): number {
    return this.#pending.size;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        void this.#tryAll();
      },
      backoffDelayMs(this.#o.backoff, this.#failures),
    );
    this.#timer.unref();
  }

  async #tryAll(): Promise<void> {
    const { store, logger, now } = this.#o;
    let given = 0;
    for (const [jobId, token] of [...this.#pending]) {
      try {
        await store.releaseLease(this.#o.leaseKey(jobId), token);
        await store.schedule(jobId, now());
      } catch {
        break;
      }
      this.#pending.delete(jobId);
      given += 1;
      logger.info({ jobId }, "job given back to the due queue after a store failure");
    }
    if (given > 0) this.#o.onGivenBack();
    if (this.#pending.size === 0) {
      this.#failures = 0;
      return;
    }
    this.#failures += 1;
    this.#arm();
  }
}
