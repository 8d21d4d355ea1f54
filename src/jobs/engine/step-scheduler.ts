import PQueue from "p-queue";

/**
 * A claimed job's step waits its turn here: a few heavy transfers at once, more of everything else.
 */
export class StepScheduler {
  readonly #calls: PQueue;
  readonly #transfers: PQueue;
  readonly #waiting = new Set<() => void>();
  #stopped = false;

  constructor(options: { concurrency: { transfers: number; calls: number } }) {
    this.#calls = new PQueue({ concurrency: options.concurrency.calls });
    this.#transfers = new PQueue({ concurrency: options.concurrency.transfers });
  }

  /** "dropped" when the scheduler stops before its turn. */
  run(transfer: boolean, work: () => Promise<void>): Promise<"ran" | "dropped"> {
    if (this.#stopped) return Promise.resolve("dropped");
    return new Promise((resolve, reject) => {
      const drop = () => resolve("dropped");
      this.#waiting.add(drop);
      (transfer ? this.#transfers : this.#calls)
        .add(async () => {
          this.#waiting.delete(drop);
          await work();
        })
        .then(() => resolve("ran"), reject);
    });
  }

  enqueue(work: () => Promise<void>): Promise<void> {
    return this.#calls.add(work);
  }

  stats(): { queued: number } {
    return { queued: this.#calls.size + this.#transfers.size };
  }

  /** Waiting steps are dropped; "timeout" leaves the running ones going (see `idle`). */
  async stop(timeoutMs: number): Promise<"idle" | "timeout"> {
    this.#stopped = true;
    this.#calls.clear();
    this.#transfers.clear();
    for (const drop of this.#waiting) drop();
    this.#waiting.clear();
    const timeout = new Promise<"timeout">((resolve) =>
      setTimeout(resolve, timeoutMs, "timeout").unref(),
    );
    return Promise.race([this.idle().then(() => "idle" as const), timeout]);
  }

  async idle(): Promise<void> {
    await Promise.all([this.#calls.onIdle(), this.#transfers.onIdle()]);
  }
}
