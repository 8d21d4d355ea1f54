// Which installation something belongs to: {@link SINGLE_INSTALL}, a workspace's `T…`, or an
// org-wide install's `E…` serving every workspace of its organisation.
import { SINGLE_INSTALL } from "../../jobs/index.ts";

export interface InstallRef {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

/**
 * The prefix keeps org-wide and workspace installs apart even for odd ids. @throws when neither is
 * named.
 */
export function installKeyOf(ref: InstallRef): string {
  if (ref.isEnterpriseInstall === true) {
    if (!ref.enterpriseId) throw new Error("an org-wide installation without an enterprise id");
    return `E${ref.enterpriseId}`;
  }
  if (!ref.teamId) throw new Error("a workspace installation without a team id");
  return `T${ref.teamId}`;
}

/**
 * The `team_id` an org-wide install's calls must carry ("some API methods will require a team_id").
 */
export function callTeamOf(install: string, teamId: string): string | undefined {
  return install.startsWith("E") ? teamId : undefined;
}

/**
 * Limits apply "per API method per workspace/team per app"
 * (https://docs.slack.dev/apis/web-api/rate-limits).
 */
export function rateWorkspaceOf(install: string, teamId: string | undefined): string {
  if (install === SINGLE_INSTALL) return "";
  return teamId ?? install;
}
