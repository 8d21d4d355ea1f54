import type { Logger } from "pino";
import { BACKOFFS, type Backoff, backoffDelayMs } from "../../util/backoff.ts";
import type { JournalEntry, RequestJournal } from "./request-journal.ts";

/** Not done: the store still fails; `entry` is the entry as it is to be kept. */
export type ReplayOutcome<T> = { done: true } | { done: false; entry?: T };

export interface JournalReplayOptions<T extends JournalEntry> {
  journal: RequestJournal<T>;
  /** Throwing keeps the entry for the next pass. */
  replay: (entry: T) => Promise<ReplayOutcome<T>>;
  /**
   * Told of each entry a failing pass left; resolves with
   * it, changed if need be (the person was told it waits).
   */
  waiting?: (entry: T) => Promise<T>;
  logger: Logger;
  backoff?: Backoff;
  /** By then the upload's claim has lapsed. */
  maxAgeMs?: number;
  now?: () => number;
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * Replays a {@link RequestJournal} until it is empty, at start and after each `keep`, with waits
 * that double while the store still fails; a pass stops at the first entry the store refuses.
 */
export class JournalReplay<T extends JournalEntry> {
  readonly #o: Required<Omit<JournalReplayOptions<T>, "waiting">> &
    Pick<JournalReplayOptions<T>, "waiting">;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #failures = 0;
  #again = false;
  #stopped = false;

  constructor(options: JournalReplayOptions<T>) {
    this.#o = {
      backoff: BACKOFFS.journalReplay,
      maxAgeMs: DAY_MS,
      now: Date.now,
      ...options,
    };
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  async keep(entry: T): Promise<boolean> {
    const kept = await this.#o.journal.keep(entry);
    if (kept) this.#schedule(this.#delay());
    return kept;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  async settled(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  #delay(): number {
    return backoffDelayMs(this.#o.backoff, this.#failures - 1);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#pass().finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.#schedule(this.#delay());
        }
      });
    }, ms);
    this.#timer.unref();
  }

  async #pass(): Promise<void> {
    try {
      const entries = await this.#o.journal.read();
      const done = new Set<string>();
      const changed = new Map<string, T>();
      let blocked = false;
      for (const entry of entries) {
        if (this.#stopped) break;
        if (this.#o.now() - entry.at > this.#o.maxAgeMs) {
          this.#o.logger.error({ entryId: entry.id }, "a kept request was too old to replay");
          done.add(entry.id);
        } else if (!blocked) {
          const outcome = await this.#replayOne(entry);
          if (outcome.done) done.add(entry.id);
          else if (outcome.entry !== undefined) changed.set(entry.id, outcome.entry);
          blocked = !outcome.done;
        }
      }
      if (blocked) await this.#tellWaiting(entries, done, changed);
      const left = await this.#o.journal.settle(done, changed);
      if (done.size > 0)
        this.#o.logger.info({ replayed: done.size, left }, "kept requests replayed");
      this.#failures = left > 0 ? this.#failures + 1 : 0;
      if (left > 0) this.#again = true;
    } catch (error) {
      this.#o.logger.error({ err: error }, "the request journal could not be replayed");
      this.#failures += 1;
      this.#again = true;
    }
  }

  async #tellWaiting(entries: T[], done: Set<string>, changed: Map<string, T>): Promise<void> {
    const { waiting } = this.#o;
    if (waiting === undefined) return;
    for (const entry of entries) {
      if (this.#stopped || done.has(entry.id)) continue;
      const current = changed.get(entry.id) ?? entry;
      try {
        const next = await waiting(current);
        if (next !== current) changed.set(entry.id, next);
      } catch (error) {
        this.#o.logger.warn({ err: error, entryId: entry.id }, "could not say a request waits");
      }
    }
  }

  async #replayOne(entry: T): Promise<ReplayOutcome<T>> {
    try {
      return await this.#o.replay(entry);
    } catch (error) {
      this.#o.logger.warn({ err: error, entryId: entry.id }, "a kept request failed again");
      return { done: false };
    }
  }
}
