import type { Logger } from "pino";
import type { DueClaim, Store } from "../../store/index.ts";
import { BACKOFFS, backoffDelayMs } from "../../util/backoff.ts";

export interface DuePumpOptions {
  store: Store;
  logger: Logger;
  now: () => number;
  leasePrefix: string;
  leaseTtlMs: number;
  capacity: number;
  /** What other replicas schedule (and a dead one leaves) is seen within this time. */
  checkMs: number;
  /** Claims are batched this far apart, so store work grows with jobs, not jobs × replicas. */
  gapMs: number;
  drive(claim: DueClaim): Promise<void>;
}

/**
 * Claims due jobs from the store's queue as room allows and sleeps until the next due time: no
 * timer per job, and taking over a dead replica's jobs is the same claim (its leases lapse).
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
  #backlog = false;
  #driving = 0;
  #stopped = true;
  #pace:
    | { perSecond: number; until: number; atLatest: number; allowance: number; at: number }
    | undefined;
  readonly #onDrained: (() => void)[] = [];
  /**
   * Jobs whose step crashed because the store failed, by lease token: given back once the store
   * answers, else they would hide (and a person's click wait) until the lease lapses.
   */
  readonly #givingBack = new Map<string, string>();
  #giveBackTimer: NodeJS.Timeout | undefined;
  #giveBackFailures = 0;

  constructor(options: DuePumpOptions) {
    this.#o = options;
  }

  start(): void {
    this.#stopped = false;
    this.wake(true);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#giveBackTimer);
    this.#timer = undefined;
    this.#giveBackTimer = undefined;
  }

  /**
   * A restart's backlog is caught up at about this rate, not in one
   * burst, even when this process falls behind; never past `atLatest`.
   */
  pace(perSecond: number, until: number, atLatest: number): void {
    if (!(perSecond > 0)) return;
    this.#pace = { perSecond, until, atLatest, allowance: 1, at: this.#o.now() };
  }

  wake(now = false): void {
    if (this.#stopped) return;
    this.#wanted = true;
    this.#arm(now ? this.#o.now() : this.#lastClaimAt + this.#o.gapMs);
  }

  get driving(): number {
    return this.#driving;
  }

  /**
   * At shutdown, before the store closes: a lease left
   * behind on Redis keeps the job waiting until it lapses.
   */
  drained(): Promise<void> {
    if (this.#driving === 0) return Promise.resolve();
    return new Promise((resolve) => this.#onDrained.push(resolve));
  }

  quiet(now: number): boolean {
    if (this.#claiming || this.#wanted || this.#driving > 0 || this.#givingBack.size > 0) {
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
    const at = Math.min(room ? next : Number.POSITIVE_INFINITY, now() + this.#o.checkMs);
    this.#arm(Math.max(at, this.#lastClaimAt + this.#o.gapMs));
  }

  #paced(): number {
    const pace = this.#pace;
    if (pace === undefined) return Number.POSITIVE_INFINITY;
    const now = this.#o.now();
    if (now >= pace.atLatest) {
      this.#pace = undefined;
      return Number.POSITIVE_INFINITY;
    }
    // At most a fifth of a second's worth is kept: batches, never a burst.
    pace.allowance = Math.min(
      Math.max(1, pace.perSecond / 5),
      pace.allowance + ((now - pace.at) * pace.perSecond) / 1000,
    );
    pace.at = now;
    return Math.max(0, Math.floor(pace.allowance));
  }

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
        // Mostly the store failing under the step.
        if (this.#stopped) return;
        this.#givingBack.set(claim.jobId, claim.token);
        this.#armGiveBack();
      })
      .finally(() => {
        this.#driving -= 1;
        if (this.#driving === 0) for (const resolve of this.#onDrained.splice(0)) resolve();
        // Behind: claim again once half the room is free, without waiting out the gap.
        const room = this.#o.capacity - this.#driving;
        this.wake(this.#backlog && room >= Math.ceil(this.#o.capacity / 2));
      });
  }

  #armGiveBack(): void {
    if (this.#giveBackTimer !== undefined || this.#stopped) return;
    const waitMs = backoffDelayMs(BACKOFFS.giveBack, this.#giveBackFailures);
    this.#giveBackTimer = setTimeout(() => {
      this.#giveBackTimer = undefined;
      void this.#giveBack();
    }, waitMs);
    this.#giveBackTimer.unref();
  }

  async #giveBack(): Promise<void> {
    const { store, logger, now, leasePrefix } = this.#o;
    let given = 0;
    for (const [jobId, token] of [...this.#givingBack]) {
      try {
        await store.releaseLease(leasePrefix + jobId, token);
        await store.schedule(jobId, now());
      } catch {
        break;
      }
      this.#givingBack.delete(jobId);
      given += 1;
      logger.info({ jobId }, "job given back to the due queue after a store failure");
    }
    if (given > 0) this.wake(true);
    if (this.#givingBack.size === 0) {
      this.#giveBackFailures = 0;
      return;
    }
    this.#giveBackFailures += 1;
    this.#armGiveBack();
  }
}
