import { randomUUID } from "node:crypto";
import type { ActiveIndex, DueQueue } from "./sqlite-tables.ts";
import type { DueClaim } from "./store.ts";
import { type ClockSources, StoreClock } from "./store-clock.ts";

/**
 * What a one-process store keeps beside its values: leases and brief claims in this process,
 * the due queue and the active index in SQLite. Every method is synchronous, which is what
 * makes it atomic.
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
    return this.#due.spreadOverdue(now, windowMs, stages, this.clock.now());
  }

  /**
   * A queue on disk was written by an earlier process: the clock resumes from its latest
   * change (the wall clock may have been set back since), and the jobs that process left
   * leased mid-step (its leases died with it) are due now. Resolves to how many.
   */
  resumeFromDisk(): number {
    const last = this.#due.lastChangedAt();
    if (last !== undefined) this.clock.advanceTo(last);
    return this.#due.resumeLeased(this.clock.now());
  }
}

interface Lease {
  token: string;
  expiresAt: number;
}

/** Past this many entries, acquiring a lease first drops the expired ones. */
const LEASES_PRUNE_ABOVE = 1024;

/** In-process leases of a one-process store; a restart frees them all. Synchronous. */
export class LeaseTable {
  readonly #leases = new Map<string, Lease>();
  readonly #now: () => number;

  /** `now`: a monotonic clock (the store's), never the wall clock, which may jump. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  acquire(key: string, ttlMs: number): string | undefined {
    const now = this.#now();
    if (this.#leases.size > LEASES_PRUNE_ABOVE) this.#prune(now);
    const current = this.#leases.get(key);
    if (current !== undefined && current.expiresAt > now) return undefined;
    const token = randomUUID();
    this.#leases.set(key, { token, expiresAt: now + ttlMs });
    return token;
  }

  renew(key: string, token: string, ttlMs: number): boolean {
    const now = this.#now();
    const current = this.#leases.get(key);
    if (current === undefined || current.token !== token) return false;
    if (current.expiresAt <= now) {
      // Lapsed: like Redis, where the key is gone, the old holder cannot revive it.
      this.#leases.delete(key);
      return false;
    }
    current.expiresAt = now + ttlMs;
    return true;
  }

  expiresAt(key: string): number | undefined {
    const current = this.#leases.get(key);
    return current !== undefined && current.expiresAt > this.#now() ? current.expiresAt : undefined;
  }

  release(key: string, token: string): void {
    if (this.#leases.get(key)?.token === token) this.#leases.delete(key);
  }

  #prune(now: number): void {
    for (const [key, lease] of this.#leases) {
      if (lease.expiresAt <= now) this.#leases.delete(key);
    }
  }
}

/** Past this many entries an insertion first drops the expired ones (then the bar doubles). */
const PRUNE_ABOVE = 1024;

/** Short-lived "seen once" keys of a one-process store, in a Map pruned to stay bounded. */
export class BriefClaims {
  readonly #expiries = new Map<string, number>();
  readonly #now: () => number;
  #pruneAbove = PRUNE_ABOVE;

  /** `now`: a monotonic clock (the store's), never the wall clock, which may jump. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  claim(key: string, ttlMs: number): boolean {
    const now = this.#now();
    const expires = this.#expiries.get(key);
    if (expires !== undefined && expires > now) return false;
    if (this.#expiries.size >= this.#pruneAbove) this.#prune(now);
    this.#expiries.set(key, now + ttlMs);
    return true;
  }

  get size(): number {
    return this.#expiries.size;
  }

  #prune(now: number): void {
    for (const [key, expires] of this.#expiries) {
      if (expires <= now) this.#expiries.delete(key);
    }
    this.#pruneAbove = Math.max(PRUNE_ABOVE, this.#expiries.size * 2);
  }
}
