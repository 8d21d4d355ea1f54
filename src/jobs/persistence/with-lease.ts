import { setTimeout as sleep } from "node:timers/promises";
import type { Store } from "../../store/index.ts";

/**
 * The process no longer holds a lease it ran under (it stalled past the lease's end, and
 * another replica may have taken over): its work must stop without saving anything.
 */
export class LeaseLost extends Error {
  readonly code = "lease_lost";

  constructor(key: string) {
    super(`The lease ${key} was lost.`);
    this.name = this.constructor.name;
  }
}

export interface LeaseOptions {
  ttlMs: number;
  /** While someone else holds it: try again this many times, this long apart (default: once). */
  retry?: { tries: number; delayMs: number };
  /**
   * Renew the lease every third of its time while `work` runs; once it is lost, `signal`
   * aborts with {@link LeaseLost} (long work: a runner's step).
   */
  keepAlive?: boolean;
  /** A lease already taken (with a claim from the due queue): run under it, do not acquire. */
  token?: string;
  /**
   * A release the store failed is thrown, after `work` (its result is lost): for a caller
   * that gives the lease back later itself (the runner's due pump), rather than leave it
   * held until it lapses. Otherwise a failed release is let go.
   */
  throwIfNotReleased?: boolean;
}

/** What work under a lease may use. */
export interface HeldLease {
  /** Aborted with {@link LeaseLost} once the lease is lost (with `keepAlive`). */
  readonly signal: AbortSignal;
  /** Renews the lease now; throws {@link LeaseLost} once it is lost. */
  renew(): Promise<void>;
}

export type LeaseResult<T> = { held: true; value: T } | { held: false };

/**
 * Runs `work` under the lease `key` (`SET NX PX` on Redis, a table in one process), and
 * gives the lease back after, holder-checked: one place for acquire, renew and release.
 * Resolves `{ held: false }` when someone else holds the lease past the retries.
 */
export async function withLease<T>(
  store: Store,
  key: string,
  options: LeaseOptions,
  work: (lease: HeldLease) => Promise<T>,
): Promise<LeaseResult<T>> {
  const token = options.token ?? (await acquire(store, key, options));
  if (token === undefined) return { held: false };
  const controller = new AbortController();
  const lease: HeldLease = {
    signal: controller.signal,
    async renew() {
      if (controller.signal.reason instanceof LeaseLost) throw controller.signal.reason;
      if (!(await store.renewLease(key, token, options.ttlMs))) {
        controller.abort(new LeaseLost(key));
        throw controller.signal.reason;
      }
    },
  };
  const timer = options.keepAlive
    ? setInterval(() => lease.renew().catch(() => undefined), options.ttlMs / 3)
    : undefined;
  try {
    return { held: true, value: await work(lease) };
  } finally {
    clearInterval(timer);
    await store.releaseLease(key, token).catch((error: unknown) => {
      if (options.throwIfNotReleased === true) throw error;
    });
  }
}

async function acquire(
  store: Store,
  key: string,
  options: LeaseOptions,
): Promise<string | undefined> {
  const tries = options.retry?.tries ?? 1;
  for (let attempt = 0; attempt < tries; attempt++) {
    if (attempt > 0) await sleep(options.retry?.delayMs ?? 0);
    const token = await store.acquireLease(key, options.ttlMs);
    if (token !== undefined) return token;
  }
  return undefined;
}
