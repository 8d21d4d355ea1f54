import type { Logger } from "pino";
import type { DueClaim, Store } from "../../store/index.ts";
import { GiveBack } from "./give-back.ts";

export interface DuePumpOptions {
  store: Store;
  logger: Logger;
  now: () => number;
  /** The prefix of a job's lease key (`leasePrefix + id`). */
  leasePrefix: string;
  leaseTtlMs: number;
  /** Jobs claimed here at most at once (waiting for their turn or running). */
  capacity: number;
  /**
   * The longest this process goes without looking at the queue: what other replicas
   * schedule (and what a dead replica leaves) is seen within this time.
   */
  checkMs: number;
  /**
   * The shortest time between two claims, unless this process asks for one at once or is
   * behind (then it claims whenever half its room is free): with jobs due all the time, each
   * replica claims in batches, so the store's work grows with the jobs, not with
   * jobs × replicas.
   */
  gapMs: number;
  /** Drives a claimed job; resolves once its lease is given back. */
  drive(claim: DueClaim): Promise<void>;
}

/**
 * Takes due jobs from the store's due queue for this process, as many as it has room for,
 * and sleeps until the earliest due time it learnt (or `checkMs`). No timer per job and no
 * periodic read of every job: start-up and taking over a dead replica's jobs are the same
 * claim (an expired lease makes a job claimable again).
 */
export class DuePump {
  readonly #o: DuePumpOptions;
  #timer: NodeJS.Timeout | undefined;
  #armedAt = Number.POSITIVE_INFINITY;
  #lastClaimAt = Number.NEGATIVE_INFINITY;
  #claiming = false;
  #again = false;
  #wanted = false;
  #next: number | undefined;
  /** The last claim filled the room and more jobs were due: claim again as room frees. */
  #backlog = false;
  #driving = 0;
  #stopped = true;
  /** A restart's pace (see `pace`): claims a second, until when, and what is left to claim. */
  #pace:
    | { perSecond: number; until: number; atLatest: number; allowance: number; at: number }
    | undefined;
  readonly #giveBack: GiveBack;
  readonly #onDrained: (() => void)[] = [];

  constructor(options: DuePumpOptions) {
    this.#o = options;
    this.#giveBack = new GiveBack({
      store: options.store,
      logger: options.logger,
      now: options.now,
      leaseKey: (jobId) => options.leasePrefix + jobId,
      onGivenBack: () => this.wake(true),
    });
  }

  start(): void {
    this.#stopped = false;
    this.wake(true);
  }

  stop(): void {
    this.#stopped = true;
    this.#giveBack.stop();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Claims no more than `perSecond` jobs a second until `until`, and past it for as long as
   * the pump is behind: a restart's backlog, spread over a window, is caught up at about the
   * spread's own rate when this process falls behind it (starved of CPU, a store call past
   * its deadline) — not all at once at the process's top speed, a burst of calls the spread
   * was there to prevent. Never past `atLatest`, should the pace be below what falls due.
   */
  pace(perSecond: number, until: number, atLatest: number): void {
    if (!(perSecond > 0)) return;
    this.#pace = { perSecond, until, atLatest, allowance: 1, at: this.#o.now() };
  }

  /** Claims soon: at once with `now` (a job of this process is due now), else after the gap. */
  wake(now = false): void {
    if (this.#stopped) return;
    this.#wanted = true;
    this.#arm(now ? this.#o.now() : this.#lastClaimAt + this.#o.gapMs);
  }

  /** Jobs claimed here and not yet given back. */
  get driving(): number {
    return this.#driving;
  }

  /**
   * Resolves once every job claimed here has been given back — its lease released, its next
   * due time written: at shutdown, before the store closes under a release (on Redis a lease
   * left behind keeps the job, and every click on it, waiting for the lease to lapse).
   */
  drained(): Promise<void> {
    if (this.#driving === 0) return Promise.resolve();
    return new Promise((resolve) => this.#onDrained.push(resolve));
  }

  /** Nothing claimed or being claimed here, and nothing known to be due by `now`. */
  quiet(now: number): boolean {
    if (this.#claiming || this.#wanted || this.#driving > 0 || this.#giveBack.size > 0) {
      return false;
    }
    return this.#next === undefined || this.#next > now;
  }

  #arm(at: number): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined && this.#armedAt <= at) return;
    clearTimeout(this.#timer);
    this.#armedAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#armedAt = Number.POSITIVE_INFINITY;
        void this.#claim();
      },
      Math.max(0, at - this.#o.now()),
    );
  }

  async #claim(): Promise<void> {
    if (this.#stopped) return;
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    this.#claiming = true;
    this.#wanted = false;
    const { store, now, leasePrefix, leaseTtlMs, capacity } = this.#o;
    try {
      for (;;) {
        this.#again = false;
        const free = Math.max(0, capacity - this.#driving);
        const room = Math.min(free, this.#paced());
        if (room === 0 && free > 0) break;
        const { claimed, next } = await store.claimDue(now(), room, leasePrefix, leaseTtlMs);
        this.#lastClaimAt = now();
        this.#next = next;
        if (this.#pace !== undefined) this.#pace.allowance -= claimed.length;
        for (const claim of claimed) this.#drive(claim);
        const more = claimed.length === room && next !== undefined && next <= now();
        this.#backlog = more;
        const pace = this.#pace;
        if (pace !== undefined && now() >= (more ? pace.atLatest : pace.until))
          this.#pace = undefined;
        if (this.#stopped || this.#driving >= capacity || !(this.#again || more)) break;
      }
    } catch (error) {
      this.#o.logger.warn({ err: error }, "could not claim due jobs; trying again");
      this.#next = undefined;
    } finally {
      this.#claiming = false;
    }
    const next = Math.max(this.#next ?? Number.POSITIVE_INFINITY, this.#pacedFrom());
    const room = this.#driving < capacity;
    // With no room, a job given back wakes the pump; else the next due time, or a look later.
    const at = Math.min(room ? next : Number.POSITIVE_INFINITY, now() + this.#o.checkMs);
    this.#arm(Math.max(at, this.#lastClaimAt + this.#o.gapMs));
  }

  /** How many jobs the pace lets this claim take (unbounded without a pace). */
  #paced(): number {
    const pace = this.#pace;
    if (pace === undefined) return Number.POSITIVE_INFINITY;
    const now = this.#o.now();
    if (now >= pace.atLatest) {
      this.#pace = undefined;
      return Number.POSITIVE_INFINITY;
    }
    // A fifth of a second's worth is kept at most: batches of claims, never a burst.
    pace.allowance = Math.min(
      Math.max(1, pace.perSecond / 5),
      pace.allowance + ((now - pace.at) * pace.perSecond) / 1000,
    );
    pace.at = now;
    return Math.max(0, Math.floor(pace.allowance));
  }

  /** When the pace lets the next claim take a job (now without a pace, or with room). */
  #pacedFrom(): number {
    const pace = this.#pace;
    if (pace === undefined || pace.allowance >= 1) return Number.NEGATIVE_INFINITY;
    return pace.at + ((1 - pace.allowance) * 1000) / pace.perSecond;
  }

  #drive(claim: DueClaim): void {
    this.#driving += 1;
    this.#o
      .drive(claim)
      .catch((error: unknown) => {
        this.#o.logger.error({ err: error, jobId: claim.jobId }, "job step crashed");
        // Mostly the store failing under the step, its lease and next due time unwritten:
        // given back once the store answers rather than hidden until the lease lapses.
        this.#giveBack.add(claim.jobId, claim.token);
      })
      .finally(() => {
        this.#driving -= 1;
        if (this.#driving === 0) for (const resolve of this.#onDrained.splice(0)) resolve();
        // Behind: claim again once half the room is free, without waiting out the gap (each
        // claim still takes a batch). Else the gap keeps claims few while little is due.
        const room = this.#o.capacity - this.#driving;
        this.wake(this.#backlog && room >= Math.ceil(this.#o.capacity / 2));
      });
  }
}
