/**
 * Which installation of the app a request, a job or a stored value belongs to.
 *
 * In the single-token mode there is one, {@link SINGLE_INSTALL}. With installs by OAuth each
 * workspace that installs the app is one (`T…`, its team id), and an organisation that
 * installs it org-wide on Enterprise Grid is one (`E…`, its enterprise id) serving every
 * workspace of the organisation.
 */
// Defined by the job layer, which keys every job's data by its tenant and knows an install
// only as an opaque key; named here too, beside the keys' other rule.
import { SINGLE_INSTALL } from "../../jobs/index.ts";

export { SINGLE_INSTALL, tenantOf } from "../../jobs/index.ts";

/** What Bolt's context says of a request's installation. */
export interface InstallRef {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

/**
 * The store's key of an installation: `E<enterprise id>` when org-wide, else
 * `T<team id>`. Slack's ids start with their letter already (`E0…`, `T0…`); the prefix keeps
 * an org-wide install and a workspace install apart even if a test gives odd ids.
 * @throws when the reference names neither (a request Slack would not send).
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
 * The workspace the calls of `install` made for workspace `teamId` name as `team_id`: an
 * org-wide install's one token acts in every workspace of the organisation, and Slack asks
 * which one on methods that name no conversation ("some API methods will require a team_id
 * to indicate which workspace to act on"); a workspace install's token names its own, so
 * its calls carry none, as in the single-token mode.
 */
export function callTeamOf(install: string, teamId: string): string | undefined {
  return install.startsWith("E") ? teamId : undefined;
}

/**
 * What the job runner keeps one client (and one gateway) per: the install, or for an
 * org-wide install each workspace of it, since its calls differ by their `team_id`.
 */
export function callScopeOf(install: string, teamId: string): string {
  const team = callTeamOf(install, teamId);
  return team === undefined ? install : `${install}/${team}`;
}

/**
 * The workspace whose rate limits a call of `install` for workspace `teamId` counts against:
 * Slack applies them "per API method per workspace/team per app"
 * (https://docs.slack.dev/apis/web-api/rate-limits). The single-token mode has one; with
 * installs, the workspace (an org-wide install's calls count in the workspace they act in),
 * or the install itself when a request names no workspace.
 */
export function rateWorkspaceOf(install: string, teamId: string | undefined): string {
  if (install === SINGLE_INSTALL) return "";
  return teamId ?? install;
}
