import PQueue from "p-queue";

export interface StepSchedulerOptions {
  /** Steps run at once: heavy transfers, and everything else. */
  concurrency: { transfers: number; calls: number };
}

/**
 * Where a claimed job's step waits for its turn in this process: one of two queues (a few
 * heavy transfers at once, more of everything else). Knows nothing of what a step does.
 */
export class StepScheduler {
  readonly #calls: PQueue;
  readonly #transfers: PQueue;
  /** Work waiting in a queue: told "dropped" if the queues are cleared before it runs. */
  readonly #waiting = new Set<() => void>();
  #stopped = false;

  constructor(options: StepSchedulerOptions) {
    this.#calls = new PQueue({ concurrency: options.concurrency.calls });
    this.#transfers = new PQueue({ concurrency: options.concurrency.transfers });
  }

  /**
   * Runs `work` in its queue; resolves "ran" once it has run (its errors are the caller's),
   * or "dropped" when the scheduler stops before its turn.
   */
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

  /** Small work outside a job's step (settling a canceled job), in the calls queue. */
  enqueue(work: () => Promise<void>): Promise<void> {
    return this.#calls.add(work);
  }

  /** Steps waiting in the queues. */
  stats(): { queued: number } {
    return { queued: this.#calls.size + this.#transfers.size };
  }

  /**
   * Starts nothing more: waiting steps are dropped. Resolves "idle" when the steps under way
   * have finished, or "timeout" after `timeoutMs` (they go on; see `idle`).
   */
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

  /** Resolves once no step is under way. */
  async idle(): Promise<void> {
    await Promise.all([this.#calls.onIdle(), this.#transfers.onIdle()]);
  }
}
