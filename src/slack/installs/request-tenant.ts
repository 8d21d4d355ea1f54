import { AsyncLocalStorage } from "node:async_hooks";
import { z } from "zod";
import { installOf, type Job, SINGLE_INSTALL, tenantOf, tenantOfOrigin } from "../../jobs/index.ts";
import { type InstallRef, installKeyOf, rateWorkspaceOf } from "./install-key.ts";

/**
 * The tenant of the Slack request being handled — the install and the workspace its
 * listeners act for — decided here only, once per request, from Bolt's context (every
 * listener, service and view asks this module; test/architecture/request-tenant.test.ts
 * holds that nothing else in src/slack reads a payload's team or enterprise fields).
 *
 * Bolt's `context.teamId` is the workspace where the app is installed, read from Slack's
 * documented fields (test/fixtures/slack/slack-connect.json): for an event, its
 * `authorizations` ("an app installation that the event is visible to") before the
 * envelope's `team_id` ("the workspace where the event occurred", in a Slack Connect channel
 * the host's, another organisation's); for a slash command, its `team_id`; for a modal,
 * `view.app_installed_team_id` before `team.id` (a Connect partner's own team); for a click
 * or a shortcut, `team.id` (the install's even for a partner's click, whose own team is in
 * `user.team_id`). So an upload, a mention, a command, a click and a modal in one channel
 * are one tenant, whichever organisation hosts the channel.
 */
const current = new AsyncLocalStorage<RequestTenant>();

/** What a request says of whose it is. */
export interface RequestTenant {
  /** The install: {@link SINGLE_INSTALL}, or with installs by OAuth `T…` / `E…`. */
  install: string;
  /** The workspace Bolt's context names; undefined when it names none. */
  teamId: string | undefined;
}

/** Thrown where a request's workspace is needed and it names none: nothing is done for it. */
export class NoWorkspaceError extends Error {
  override readonly name = "NoWorkspaceError";
  readonly code = "no_workspace";
  constructor() {
    super("the request names no workspace");
  }
}

/**
 * The tenant of a request from Bolt's context: with installs (`installs` true), the install
 * its context names (`teamId`, `enterpriseId`, `isEnterpriseInstall`, as Bolt filled them
 * from the payload and its `authorizations` before any middleware runs); without, the one
 * install of the single-token mode. The workspace is Bolt's `teamId` either way.
 */
export function tenantOfContext(context: InstallRef, installs: boolean): RequestTenant {
  const install = installs ? installKeyOf(context) : SINGLE_INSTALL;
  return { install, teamId: workspaceOfContext(context) };
}

/** The workspace Bolt's context names (see above); undefined when it names none. */
export function workspaceOfContext(context: InstallRef): string | undefined {
  return context.teamId || undefined;
}

/** The install of the request being handled; outside a request, the single one. */
export function requestInstall(): string {
  return current.getStore()?.install ?? SINGLE_INSTALL;
}

/** The workspace of the request being handled; undefined when it names none. */
export function requestWorkspace(): string | undefined {
  return current.getStore()?.teamId;
}

/**
 * The key every value the request reads or writes is kept under (settings, templates, the
 * indexes of jobs by channel and person): `tenantOf(install, workspace)`.
 * @throws NoWorkspaceError when the request names no workspace.
 */
export function requestTenant(): string {
  return tenantOf(requestInstall(), workspaceOrThrow());
}

/**
 * The fields of a job's origin that say whose it is: its workspace, and with installs its
 * install (none in the single-token mode, whose records stay as they were before installs).
 * @throws NoWorkspaceError when the request names no workspace.
 */
export function requestOrigin(): { install?: string; teamId: string } {
  const install = requestInstall();
  const teamId = workspaceOrThrow();
  return install === SINGLE_INSTALL ? { teamId } : { install, teamId };
}

/** The workspace whose Slack rate limits the request's calls count against. */
export function requestRateWorkspace(): string {
  const scope = current.getStore();
  return scope === undefined ? "" : rateWorkspaceOf(scope.install, scope.teamId);
}

/**
 * Whether the request may name `job` at all. It fails closed: a request that names no
 * workspace owns nothing. Else the job was started in the request's install and, with
 * installs, under its tenant (an org-wide install's workspaces are tenants apart). A job
 * that is not is answered as one that does not exist: replaying another workspace's button
 * value or modal metadata learns nothing. The single-token mode has one install, which wrote
 * every job, under whichever workspace its request named then.
 */
export function requestOwns(job: Job): boolean {
  const scope = current.getStore();
  if (scope?.teamId === undefined) return false;
  if (installOf(job.origin) !== scope.install) return false;
  if (scope.install === SINGLE_INSTALL) return true;
  return tenantOfOrigin(job.origin) === tenantOf(scope.install, scope.teamId);
}

/** Runs `fn` as a request of `install` in workspace `teamId` (a kept request replayed, tests). */
export function runAsInstall<T>(install: string, fn: () => T, teamId?: string): T {
  return current.run({ install, teamId }, fn);
}

/**
 * A global Bolt middleware that runs the rest of the request (the listeners) as a request of
 * its tenant ({@link tenantOfContext}).
 */
export function scopeRequests(installs: boolean) {
  return ({ context, next }: { context: InstallRef; next: () => Promise<void> }) =>
    current.run(tenantOfContext(context, installs), next);
}

/** An id the envelope may carry; anything odd in it is dropped. */
const optionalId = z.string().min(1).nullish().catch(null);
const envelopeSchema = z.looseObject({
  team_id: z.string().min(1),
  enterprise_id: optionalId,
  context_team_id: optionalId,
  context_enterprise_id: optionalId,
  authorizations: z
    .array(
      z
        .looseObject({ team_id: optionalId, enterprise_id: optionalId })
        .catch({ team_id: null, enterprise_id: null }),
    )
    .optional()
    .catch(undefined),
});

/**
 * Every team and enterprise id an Events API envelope names, once each: the install's
 * (`authorizations`, `context_*`) and where the event occurred (`team_id`, `enterprise_id`:
 * a Connect channel's host). Not a tenant: what an uninstall forgets besides its tenants
 * (data kept under such an id before requests had one tenant). Undefined for an envelope
 * without a `team_id`, which Slack does not send.
 */
export function envelopeTeamIds(body: unknown): string[] | undefined {
  const parsed = envelopeSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const e = parsed.data;
  const ids = [
    e.team_id,
    e.enterprise_id,
    e.context_team_id,
    e.context_enterprise_id,
    ...(e.authorizations ?? []).flatMap((a) => [a.team_id, a.enterprise_id]),
  ];
  return [...new Set(ids.filter((id): id is string => typeof id === "string"))];
}

function workspaceOrThrow(): string {
  const teamId = requestWorkspace();
  if (teamId === undefined) throw new NoWorkspaceError();
  return teamId;
}
