import { AsyncLocalStorage } from "node:async_hooks";
import { z } from "zod";
import { installOf, type Job, SINGLE_INSTALL, tenantOf, tenantOfOrigin } from "../../jobs/index.ts";
import { type InstallRef, installKeyOf, rateWorkspaceOf } from "./install-key.ts";

/**
 * The request's tenant, decided here only from Bolt's `teamId` (where the app is installed), never
 * the envelope's `team_id`, which in a Slack Connect channel is the host's
 * (test/fixtures/slack/slack-connect.json).
 */
const current = new AsyncLocalStorage<RequestTenant>();

export interface RequestTenant {
  /** {@link SINGLE_INSTALL}, or with installs by OAuth `T…` / `E…`. */
  install: string;
  teamId: string | undefined;
}

/** A request that names no workspace: nothing is done for it. */
export class NoWorkspaceError extends Error {
  override readonly name = "NoWorkspaceError";
  readonly code = "no_workspace";
  constructor() {
    super("the request names no workspace");
  }
}

export function workspaceOfContext(context: InstallRef): string | undefined {
  return context.teamId || undefined;
}

export function requestInstall(): string {
  return current.getStore()?.install ?? SINGLE_INSTALL;
}

export function requestWorkspace(): string | undefined {
  return current.getStore()?.teamId;
}

/** The key everything the request reads or writes is kept under. @throws NoWorkspaceError */
export function requestTenant(): string {
  return tenantOf(requestInstall(), workspaceOrThrow());
}

/** A job origin's owner fields (no install in the single-token mode). @throws NoWorkspaceError */
export function requestOrigin(): { install?: string; teamId: string } {
  const install = requestInstall();
  const teamId = workspaceOrThrow();
  return install === SINGLE_INSTALL ? { teamId } : { install, teamId };
}

export function requestRateWorkspace(): string {
  const scope = current.getStore();
  return scope === undefined ? "" : rateWorkspaceOf(scope.install, scope.teamId);
}

/**
 * Whether the request may name `job`, failing closed. A job it does not own is answered as
 * missing, so replaying another workspace's button value learns nothing.
 */
export function requestOwns(job: Job): boolean {
  const scope = current.getStore();
  if (scope?.teamId === undefined) return false;
  if (installOf(job.origin) !== scope.install) return false;
  if (scope.install === SINGLE_INSTALL) return true;
  return tenantOfOrigin(job.origin) === tenantOf(scope.install, scope.teamId);
}

/** For a kept request replayed, and tests. */
export function runAsInstall<T>(install: string, fn: () => T, teamId?: string): T {
  return current.run({ install, teamId }, fn);
}

/** A global Bolt middleware: the rest of the request runs as its tenant. */
export function scopeRequests(installs: boolean) {
  return ({ context, next }: { context: InstallRef; next: () => Promise<void> }) => {
    const install = installs ? installKeyOf(context) : SINGLE_INSTALL;
    return current.run({ install, teamId: workspaceOfContext(context) }, next);
  };
}

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

/** Every team and enterprise id an envelope names: not a tenant, but an uninstall forgets them. */
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
