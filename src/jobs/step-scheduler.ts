import PQueue from "p-queue";
import type { Logger } from "pino";

export interface StepSchedulerOptions {
  now: () => number;
  /** Steps run at once: heavy transfers, and everything else. */
  concurrency: { transfers: number; calls: number };
  logger: Logger;
  /** Runs the job's step (the runner's step loop). */
  run: (jobId: string) => Promise<void>;
}

/**
 * When each job's next step runs in this process: one timer per job, then a place in one
 * of two queues (a few heavy transfers at once, more of everything else). Knows nothing
 * of what a step does; the runner does.
 */
export class StepScheduler {
  readonly #o: StepSchedulerOptions;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** When each timer fires. */
  readonly #dueAt = new Map<string, number>();
  readonly #calls: PQueue;
  readonly #transfers: PQueue;
  #stopped = false;

  constructor(options: StepSchedulerOptions) {
    this.#o = options;
    this.#calls = new PQueue({ concurrency: options.concurrency.calls });
    this.#transfers = new PQueue({ concurrency: options.concurrency.transfers });
  }

  /** Runs the job's step at `at` (now or later), in the transfer queue when `transfer`. */
  schedule(jobId: string, at: number, transfer = false): void {
    if (this.#stopped) return;
    this.clear(jobId);
    const delay = Math.max(0, at - this.#o.now());
    const timer = setTimeout(() => {
      this.#timers.delete(jobId);
      this.#dueAt.delete(jobId);
      (transfer ? this.#transfers : this.#calls)
        .add(() => this.#o.run(jobId))
        .catch((error: unknown) => {
          this.#o.logger.error({ err: error, jobId }, "job step crashed");
        });
    }, delay);
    this.#timers.set(jobId, timer);
    this.#dueAt.set(jobId, at);
  }

  /** Forgets the job's timer, if it has one. */
  clear(jobId: string): void {
    clearTimeout(this.#timers.get(jobId));
    this.#timers.delete(jobId);
    this.#dueAt.delete(jobId);
  }

  /** Whether a timer is due by `now` (it fires at the next turn of the event loop). */
  hasDue(now: number): boolean {
    for (const at of this.#dueAt.values()) if (at <= now) return true;
    return false;
  }

  /** Whether the job has a timer here. */
  has(jobId: string): boolean {
    return this.#timers.has(jobId);
  }

  /** Small work outside a job's step (settling a canceled job), in the calls queue. */
  enqueue(work: () => Promise<void>): Promise<void> {
    return this.#calls.add(work);
  }

  /** Timers set, and steps waiting in the queues. */
  stats(): { scheduled: number; queued: number } {
    return { scheduled: this.#timers.size, queued: this.#calls.size + this.#transfers.size };
  }

  /**
   * Starts nothing more: timers and waiting steps are dropped. Resolves "idle" when the
   * steps under way have finished, or "timeout" after `timeoutMs` (they go on; see `idle`).
   */
  async stop(timeoutMs: number): Promise<"idle" | "timeout"> {
    this.#stopped = true;
    for (const id of [...this.#timers.keys()]) this.clear(id);
    this.#calls.clear();
    this.#transfers.clear();
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
