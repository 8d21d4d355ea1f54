import type { InstallSnapshot } from "./installation-store.ts";

const CACHE_LIMIT = 500;

/**
 * Decrypted installs kept briefly. A revoked record is never answered from here: another
 * replica may have installed the app again, and it can drop only its own cache.
 */
export class InstallCache {
  readonly #entries = new Map<string, { snapshot: InstallSnapshot; until: number }>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(ttlMs: number, now: () => number) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  get(install: string): InstallSnapshot | undefined {
    const hit = this.#entries.get(install);
    if (hit === undefined || hit.until <= this.#now()) return undefined;
    return hit.snapshot.record.revokedAt === undefined ? hit.snapshot : undefined;
  }

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
