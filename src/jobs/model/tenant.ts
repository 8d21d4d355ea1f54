import type { Origin } from "./job-parts.ts";

/**
 * To the job layer an install is an opaque key; records
 * older than installs belong to the single one.
 */
export const SINGLE_INSTALL = "single";

/**
 * The prefix of a tenant's keys. Install and team, so two installs
 * never share a value (a Slack Connect channel seen by two is two
 * tenants); single-token mode keeps the team id, as stored data does.
 */
export function tenantOf(install: string, teamId: string): string {
  return install === SINGLE_INSTALL ? teamId : `${install}/${teamId}`;
}

export function installOf(origin: Pick<Origin, "install">): string {
  return origin.install ?? SINGLE_INSTALL;
}

export function tenantOfOrigin(origin: Pick<Origin, "install" | "teamId">): string {
  return tenantOf(installOf(origin), origin.teamId);
}

/** In single-token mode every tenant belongs to the one install. */
export function isTenantOf(install: string, tenant: string): boolean {
  return install === SINGLE_INSTALL || tenant.startsWith(`${install}/`);
}
