import { AsyncLocalStorage } from "node:async_hooks";
import { installOf, type Job, SINGLE_INSTALL, tenantOf, tenantOfOrigin } from "../../jobs/index.ts";
import { type InstallRef, installKeyOf, rateWorkspaceOf } from "./install-key.ts";

/**
 * The install of the Slack request being handled, for everything its listeners do: the
 * token their Slack calls carry, the tenant their reads and writes are keyed by, the
 * install a job they start belongs to. Set once per request by {@link scopeRequests}, around
 * every listener; outside a request (a kept request replayed later) it is the single one.
 */
const current = new AsyncLocalStorage<RequestScope>();

interface RequestScope {
  install: string;
  /** The workspace Bolt's context names (undefined when it names none). */
  teamId: string | undefined;
}

/** The install of the request being handled. */
export function requestInstall(): string {
  return current.getStore()?.install ?? SINGLE_INSTALL;
}

/** The workspace whose Slack rate limits the request's calls count against. */
export function requestRateWorkspace(): string {
  const scope = current.getStore();
  return scope === undefined ? "" : rateWorkspaceOf(scope.install, scope.teamId);
}

/**
 * Whether the request may name `job` at all: the job was started in the request's install
 * and, with installs, under its tenant (an org-wide install's workspaces are tenants apart).
 * A job that is not is answered as one that does not exist: replaying another workspace's
 * button value or modal metadata learns nothing. The single-token mode checks what it
 * always did: nothing here (one install wrote every job).
 */
export function requestOwns(job: Job): boolean {
  const scope = current.getStore() ?? { install: SINGLE_INSTALL, teamId: undefined };
  if (installOf(job.origin) !== scope.install) return false;
  if (scope.install === SINGLE_INSTALL || scope.teamId === undefined) return true;
  return tenantOfOrigin(job.origin) === tenantOf(scope.install, scope.teamId);
}

/**
 * The `install` field of a job the request starts: none in the single-token mode, whose
 * records stay exactly as they were before installs existed (absent means single).
 */
export function requestInstallField(): { install?: string } {
  const install = requestInstall();
  return install === SINGLE_INSTALL ? {} : { install };
}

/** The tenant a request's data of workspace `teamId` is kept under. */
export function requestTenant(teamId: string): string {
  return tenantOf(requestInstall(), teamId);
}

/** Runs `fn` as a request of `install` (tests, and a kept request replayed). */
export function runAsInstall<T>(install: string, fn: () => T, teamId?: string): T {
  return current.run({ install, teamId }, fn);
}

/**
 * A global Bolt middleware that runs the rest of the request (the listeners) as a request of
 * its install: `installs` false (the single-token mode), the single install; else the install
 * Bolt's context names (`context.teamId`, `enterpriseId`, `isEnterpriseInstall`, filled from
 * the payload and its `authorizations` before any middleware runs).
 */
export function scopeRequests(installs: boolean) {
  return ({ context, next }: { context: InstallRef; next: () => Promise<void> }) =>
    current.run(
      installs
        ? { install: installKeyOf(context), teamId: context.teamId ?? undefined }
        : { install: SINGLE_INSTALL, teamId: undefined },
      next,
    );
}
