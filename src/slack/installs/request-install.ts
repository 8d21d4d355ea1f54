import { AsyncLocalStorage } from "node:async_hooks";
import { SINGLE_INSTALL, tenantOf } from "../../jobs/index.ts";
import { type InstallRef, installKeyOf } from "./install-key.ts";

/**
 * The install of the Slack request being handled, for everything its listeners do: the
 * token their Slack calls carry, the tenant their reads and writes are keyed by, the
 * install a job they start belongs to. Set once per request by {@link scopeRequests}, around
 * every listener; outside a request (a kept request replayed later) it is the single one.
 */
const current = new AsyncLocalStorage<string>();

/** The install of the request being handled. */
export function requestInstall(): string {
  return current.getStore() ?? SINGLE_INSTALL;
}

/** The tenant a request's data of workspace `teamId` is kept under. */
export function requestTenant(teamId: string): string {
  return tenantOf(requestInstall(), teamId);
}

/** Runs `fn` as a request of `install` (tests, and a kept request replayed). */
export function runAsInstall<T>(install: string, fn: () => T): T {
  return current.run(install, fn);
}

/**
 * A global Bolt middleware that runs the rest of the request (the listeners) as a request of
 * its install: `installs` false (the single-token mode), the single install; else the install
 * Bolt's context names (`context.teamId`, `enterpriseId`, `isEnterpriseInstall`, filled from
 * the payload and its `authorizations` before any middleware runs).
 */
export function scopeRequests(installs: boolean) {
  return ({ context, next }: { context: InstallRef; next: () => Promise<void> }) =>
    current.run(installs ? installKeyOf(context) : SINGLE_INSTALL, next);
}
