import type { Logger } from "pino";
import { withTimeout } from "../util/with-timeout.ts";

export interface PeriodicCheckOptions {
  name: string;
  /** Resolves true when the check passes; false or a rejection (its reason logged) when not. */
  run: () => Promise<boolean>;
  every: (passed: boolean) => number;
  deadlineMs: number;
  logger: Logger;
}

/** One background check, tried again on an unref'd timer, each try within a deadline. */
export class PeriodicCheck {
  readonly #o: PeriodicCheckOptions;
  #passed: boolean | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  /** When the last try ended (monotonic ms). */
  #endedAt = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(options: PeriodicCheckOptions) {
    this.#o = options;
  }

  get passed(): boolean | undefined {
    return this.#passed;
  }

  /** How long ago the last try ended, in ms (Infinity before the first). */
  sinceLastMs(): number {
    return performance.now() - this.#endedAt;
  }

  /** Tries now (a try under way is shared); resolves once it ended, never rejects. */
  runNow(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running !== undefined) return this.#running;
    clearTimeout(this.#timer);
    this.#running = withTimeout(
      this.#o.run(),
      this.#o.deadlineMs,
      `no answer within ${this.#o.deadlineMs} ms`,
    )
      .then(
        (passed) => this.#record(passed, passed ? undefined : "not ready"),
        (error: unknown) => this.#record(false, reasonOf(error)),
      )
      .finally(() => {
        this.#running = undefined;
        this.#endedAt = performance.now();
        if (this.#stopped) return;
        this.#timer = setTimeout(() => void this.runNow(), this.#o.every(this.#passed === true));
        this.#timer.unref();
      });
    return this.#running;
  }

  /** No further tries (one under way ends unrecorded in any timer). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #record(passed: boolean, reason: string | undefined): void {
    const changed = this.#passed !== passed;
    this.#passed = passed;
    if (!changed) return;
    const { logger, name } = this.#o;
    if (passed) logger.info({ check: name }, "readiness: check passes");
    else logger.warn({ check: name, reason }, "readiness: check fails");
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
