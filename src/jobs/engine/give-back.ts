import type { Logger } from "pino";
import type { Store } from "../../store/index.ts";
import { BACKOFFS, type Backoff, backoffDelayMs } from "../../util/backoff.ts";

export interface GiveBackOptions {
  store: Store;
  logger: Logger;
  now: () => number;
  /** The key of a job's lease. */
  leaseKey: (jobId: string) => string;
  /** Told once a job is due again, so the process claims it at once. */
  onGivenBack: () => void;
  /** The waits between tries while the store still fails (default `BACKOFFS.giveBack`). */
  backoff?: Backoff;
}

/**
 * Jobs whose run ended without the store hearing of it — the step crashed because the store
 * failed, so neither its lease was released nor its next due time written — given back once
 * the store answers: the lease released (holder-checked, so a lease another replica took
 * since stays theirs) and the job due now. Without this such a job stays hidden behind the
 * claim until its lease lapses (60 s), and a person's click meanwhile waits as long.
 * Tried again at waits doubling from 1 s to 10 s, for as long as the process runs.
 */
export class GiveBack {
  readonly #o: Required<GiveBackOptions>;
  readonly #pending = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  /** Tries that found the store still failing, since the last that did not. */
  #failures = 0;
  #stopped = false;

  constructor(options: GiveBackOptions) {
    this.#o = { backoff: BACKOFFS.giveBack, ...options };
  }

  /** Gives back `jobId`, whose lease this process holds with `token`, as soon as it can. */
  add(jobId: string, token: string): void {
    if (this.#stopped) return;
    this.#pending.set(jobId, token);
    this.#arm();
  }

  /** Jobs waiting to be given back (metrics, tests). */
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
        // The store still fails: the rest waits for the next try.
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
