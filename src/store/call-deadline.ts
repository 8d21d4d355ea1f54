import { StoreError } from "./store.ts";

/**
 * Keeps every call to one connection within a deadline, on a timer of its own. Until a late
 * call is answered, new calls are refused unsent: callers fail fast, fewer writes land late.
 */
export class CallDeadline {
  readonly #backend: string;
  readonly #timeoutMs: number;
  #unanswered = 0;
  #stalledSince = 0;

  constructor(backend: string, timeoutMs: number) {
    this.#backend = backend;
    this.#timeoutMs = timeoutMs;
  }

  async run<T>(command: string, call: () => Promise<T>, timeoutMs = this.#timeoutMs): Promise<T> {
    const name = `${this.#backend} ${command}`;
    if (this.#unanswered > 0) {
      const ms = Math.round(performance.now() - this.#stalledSince);
      throw new StoreError(`${name} not sent: ${this.#backend} has not answered for ${ms} ms`, {
        timedOut: true,
      });
    }
    const sentAt = performance.now();
    const pending = call();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), timeoutMs);
      timer.unref();
    });
    try {
      const first = await Promise.race([pending.then((value) => ({ value })), late]);
      if (first !== "late") return first.value;
    } catch (error) {
      const reason = error instanceof Error ? error.message || error.name : String(error);
      throw new StoreError(`${name} failed: ${reason}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
    this.#holdUntilAnswered(pending, sentAt);
    throw new StoreError(`${name} timed out after ${timeoutMs} ms`, { timedOut: true });
  }

  #holdUntilAnswered(pending: Promise<unknown>, sentAt: number): void {
    if (this.#unanswered === 0) this.#stalledSince = sentAt;
    this.#unanswered += 1;
    const answered = () => {
      this.#unanswered -= 1;
    };
    pending.then(answered, answered);
  }
}
