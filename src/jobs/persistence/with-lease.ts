import { setTimeout as sleep } from "node:timers/promises";
import type { Store } from "../../store/index.ts";

/** This process stalled past its lease and another may have taken over: stop without saving. */
export class LeaseLost extends Error {
  readonly code = "lease_lost";

  constructor(key: string) {
    super(`The lease ${key} was lost.`);
    this.name = this.constructor.name;
  }
}

export interface LeaseOptions {
  ttlMs: number;
  /** Default: one try. */
  retry?: { tries: number; delayMs: number };
  /** Renewed every third of its time; `signal` aborts with {@link LeaseLost} once lost. */
  keepAlive?: boolean;
  /** Taken already (a claim from the due queue): run under it. */
  token?: string;
  /** Throw a failed release (after `work`): the due pump gives such a lease back itself. */
  throwIfNotReleased?: boolean;
}

export interface HeldLease {
  readonly signal: AbortSignal;
  renew(): Promise<void>;
}

export type LeaseResult<T> = { held: true; value: T } | { held: false };

/**
 * Runs `work` under the lease `key`, released after,
 * holder-checked: one place for acquire, renew and release.
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
