import { StoreError } from "./store.ts";

/**
 * Keeps every call to one backend connection within a deadline, with a timer of its own
 * (a client's own timeout may stop counting once a command is written). A call past its
 * deadline is left to finish on the connection, and until it does — the backend answers,
 * or the connection drops it — new calls are refused at once without being sent: callers
 * fail fast instead of each waiting a whole deadline, and fewer writes land late.
 */
export class CallDeadline {
  readonly #backend: string;
  readonly #timeoutMs: number;
  /** Calls past their deadline that the backend has not answered yet. */
  #unanswered = 0;
  /** When the oldest unanswered call was sent (monotonic ms). */
  #stalledSince = 0;

  /** `backend` names it in errors ("Redis"); `timeoutMs` is the default deadline. */
  constructor(backend: string, timeoutMs: number) {
    this.#backend = backend;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Runs `call` within `timeoutMs`; its failure, or its silence past the deadline, rejects
   * with a {@link StoreError} naming `command`.
   */
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
