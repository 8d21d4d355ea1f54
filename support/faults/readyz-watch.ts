/** One answer of `GET /readyz`, as the poller saw it. */
export interface ReadyzAnswer {
  /** `performance.now()` when it was asked. */
  at: number;
  /** The HTTP status; 0 when no answer came within the poller's 1 s. */
  status: number;
  ms: number;
  body: string;
}

/** Each answer must come within this (the bound). */
export const READYZ_ANSWER_MS = 1_000;

/**
 * Polls a bot's `/readyz` every `everyMs` for as long as it runs, each ask given up after
 * 1 s, and keeps every answer: a fault test reads when it turned 503 and back, and checks
 * every answer came in time.
 */
export class ReadyzWatch {
  readonly answers: ReadyzAnswer[] = [];
  #origin: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #inFlight = false;
  readonly #everyMs: number;

  constructor(everyMs = 250) {
    this.#everyMs = everyMs;
  }

  /** Watches this bot (the origin of its HTTP server) from now on; undefined pauses. */
  watch(origin: string | undefined): void {
    this.#origin = origin;
    if (origin !== undefined && this.#timer === undefined) {
      this.#timer = setInterval(() => void this.#ask(), this.#everyMs);
    }
    if (origin === undefined) this.stop();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Answers asked between `from` and `to` (`performance.now()` times). */
  between(from: number, to = Number.POSITIVE_INFINITY): ReadyzAnswer[] {
    return this.answers.filter((a) => a.at >= from && a.at <= to);
  }

  /** The first answer at or after `from` whose status is `status`. */
  firstAfter(from: number, status: number): ReadyzAnswer | undefined {
    return this.answers.find((a) => a.at >= from && a.status === status);
  }

  /** Answers that took longer than {@link READYZ_ANSWER_MS} or never came. */
  late(): ReadyzAnswer[] {
    return this.answers.filter((a) => a.status === 0 || a.ms > READYZ_ANSWER_MS);
  }

  async #ask(): Promise<void> {
    const origin = this.#origin;
    if (origin === undefined || this.#inFlight) return;
    this.#inFlight = true;
    const at = performance.now();
    try {
      const res = await fetch(`${origin}/readyz`, {
        signal: AbortSignal.timeout(READYZ_ANSWER_MS),
      });
      const body = await res.text();
      // The bot may have been replaced meanwhile: only answers of the watched one count.
      if (origin === this.#origin) {
        this.answers.push({ at, status: res.status, ms: performance.now() - at, body });
      }
    } catch {
      if (origin === this.#origin) {
        this.answers.push({ at, status: 0, ms: performance.now() - at, body: "" });
      }
    } finally {
      this.#inFlight = false;
    }
  }
}
