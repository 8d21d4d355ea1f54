import type { Origin } from "./job-parts.ts";

/**
 * Which installation of the app a job belongs to, and the tenant its data is kept under.
 * To the job layer an install is an opaque key (the Slack layer names them: `installKeyOf`);
 * this module only knows the single-token mode's, which every record written before
 * installs existed belongs to.
 */
export const SINGLE_INSTALL = "single";

/**
 * The prefix of the keys a request's or a job's data lives under. Single-token mode: the
 * team id, as before installs existed (stored data keeps its keys). With installs: the
 * install key and the team id, so that two installations never share a value — an
 * org-wide install's workspaces are tenants of one install, and a Slack Connect channel
 * hosted by one team but seen by two installs is two tenants.
 */
export function tenantOf(install: string, teamId: string): string {
  return install === SINGLE_INSTALL ? teamId : `${install}/${teamId}`;
}

/** The install a job was started in: absent in records older than installs, the single one. */
export function installOf(origin: Pick<Origin, "install">): string {
  return origin.install ?? SINGLE_INSTALL;
}

/** The tenant of a job's data. */
export function tenantOfOrigin(origin: Pick<Origin, "install" | "teamId">): string {
  return tenantOf(installOf(origin), origin.teamId);
}

/**
 * Whether `tenant` (as noted by {@link tenantOf}) belongs to `install`. In the single-token
 * mode every tenant does: one install wrote everything (see `forgetInstall`).
 */
export function isTenantOf(install: string, tenant: string): boolean {
  return install === SINGLE_INSTALL || tenant.startsWith(`${install}/`);
}
