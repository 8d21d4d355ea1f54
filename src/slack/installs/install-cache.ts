import type { InstallSnapshot } from "./installation-store.ts";

/** How many installs' decrypted records are kept (the oldest dropped first). */
const CACHE_LIMIT = 500;

/**
 * The decrypted installs a process keeps for a short while, so each request and job step
 * does not decrypt its install again. A revoked record is never answered from here: the app
 * may have been installed again through another replica, which can drop only its own cache.
 */
export class InstallCache {
  readonly #entries = new Map<string, { snapshot: InstallSnapshot; until: number }>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(ttlMs: number, now: () => number) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** The install as read within the TTL, unless revoked. */
  get(install: string): InstallSnapshot | undefined {
    const hit = this.#entries.get(install);
    if (hit === undefined || hit.until <= this.#now()) return undefined;
    return hit.snapshot.record.revokedAt === undefined ? hit.snapshot : undefined;
  }

  /** Keeps what was just read or written (nothing: forgets it). */
  put(install: string, snapshot: InstallSnapshot | undefined): void {
    this.#entries.delete(install);
    if (snapshot === undefined) return;
    if (this.#entries.size >= CACHE_LIMIT) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(install, { snapshot, until: this.#now() + this.#ttlMs });
  }

  drop(install: string): void {
    this.#entries.delete(install);
  }
}
