import { randomUUID } from "node:crypto";

interface Lease {
  token: string;
  expiresAt: number;
}

/** Past this many entries, acquiring a lease first drops the expired ones. */
const PRUNE_ABOVE = 1024;

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
    if (this.#leases.size > PRUNE_ABOVE) this.#prune(now);
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
