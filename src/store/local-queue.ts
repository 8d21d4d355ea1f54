import type { ActiveIndex } from "./active-index.ts";
import { BriefClaims } from "./brief-claims.ts";
import type { DueQueue } from "./due-heap.ts";
import { LeaseTable } from "./lease-table.ts";
import type { DueClaim } from "./store.ts";
import { type ClockSources, StoreClock } from "./store-clock.ts";

/**
 * What a one-process store (SQLite, memory) keeps beside its values: leases and brief claims
 * in this process, the due queue and the active index in the backend. Every method is
 * synchronous, which is what makes it atomic.
 */
export class LocalQueue {
  readonly clock: StoreClock;
  // On the monotonic clock: a wall clock set forward does not end a lease kept renewed.
  readonly leases: LeaseTable;
  readonly briefClaims: BriefClaims;
  readonly active: ActiveIndex;
  readonly #due: DueQueue;

  constructor(due: DueQueue, active: ActiveIndex, clock?: ClockSources) {
    this.clock = new StoreClock(clock);
    const now = () => this.clock.now();
    this.leases = new LeaseTable(now);
    this.briefClaims = new BriefClaims(now);
    this.active = active;
    this.#due = due;
  }

  schedule(jobId: string, at: number): void {
    this.#due.set(jobId, at, this.clock.now());
  }

  unschedule(jobId: string): void {
    this.#due.delete(jobId);
  }

  /** See `Store.claimDue`. */
  claimDue(o: { now: number; limit: number; leasePrefix: string; ttlMs: number }): {
    claimed: DueClaim[];
    next: number | undefined;
  } {
    const due = this.#due;
    const claimed: DueClaim[] = [];
    if (o.limit > 0) {
      for (const jobId of due.due(o.now, o.limit * 2)) {
        if (claimed.length >= o.limit) break;
        const key = o.leasePrefix + jobId;
        const token = this.leases.acquire(key, o.ttlMs);
        if (token !== undefined) claimed.push({ jobId, token });
        const held = token === undefined ? this.leases.expiresAt(key) : undefined;
        due.set(jobId, held ?? o.now + o.ttlMs, o.now, true);
      }
    }
    return { claimed, next: due.next() };
  }

  /** See `Store.spreadOverdue`: one process owns the queue, so no lease is needed. */
  spreadOverdue(now: number, windowMs: number, stages: readonly string[]): number {
    const inOneStatement = this.#due.spreadOverdue;
    if (inOneStatement !== undefined) {
      return inOneStatement(now, windowMs, stages, this.clock.now());
    }
    const waiting = new Set(stages);
    const overdue = this.#due
      .due(now, Number.MAX_SAFE_INTEGER)
      .filter((id) => waiting.has(this.active.stageOf(id) ?? ""));
    this.#due.setMany(spreadTimes(overdue, now, windowMs), this.clock.now());
    return overdue.length;
  }

  /**
   * A queue on disk was written by an earlier process: the clock resumes from its latest
   * change (the wall clock may have been set back since), and the jobs that process left
   * leased mid-step (its leases died with it) are due now. Resolves to how many.
   */
  resumeFromDisk(): number {
    const last = this.#due.lastChangedAt?.();
    if (last !== undefined) this.clock.advanceTo(last);
    return this.#due.resumeLeased?.(this.clock.now()) ?? 0;
  }
}

/** Due times that spread `ids` evenly over `[now, now + windowMs)`. */
function spreadTimes(
  ids: readonly string[],
  now: number,
  windowMs: number,
): [id: string, at: number][] {
  const step = ids.length > 0 ? windowMs / ids.length : 0;
  return ids.map((id, k) => [id, Math.floor(now + k * step)]);
}
