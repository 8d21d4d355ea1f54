import { randomUUID } from "node:crypto";
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { isStoreUnavailable, SINGLE_INSTALL } from "../../../jobs/index.ts";
import { envelopeTeamIds, requestInstall } from "../../installs/request-tenant.ts";
import type { ListenerDeps } from "../deps.ts";

const revokedSchema = z.looseObject({
  tokens: z.looseObject({ bot: z.array(z.string()).optional() }).optional(),
});

/**
 * `app_uninstalled`, and `tokens_revoked` naming a bot token: the install is done with the
 * app, so its running jobs stop and all of its data (jobs, settings, templates, temp files)
 * is deleted (README "Data"), then the store's files are scrubbed. Slack sends both, in
 * either order; the second finds nothing. User tokens (`oauth`) alone are not ours to act
 * on: this app asks for none.
 *
 * Which data: all of it, whatever team id the event names. This app runs with one bot
 * token, so one install wrote everything in its store, under its tenant (request-tenant.ts)
 * and, before requests had one tenant, under the envelope's `team_id` of an event from a
 * Slack Connect channel (the workspace hosting the channel) and on Enterprise Grid the
 * `enterprise_id`. Slack sends `app_uninstalled` when the app is uninstalled (its
 * `team_id` is the workspace that uninstalled it) and `tokens_revoked` when the tokens of
 * an install are revoked: both are about an install of this app, never about a partner
 * that merely shares a channel with it, which has no install to remove. A team id that is
 * not the install's own can only come from a second install of the same app (one that has
 * public distribution); this deployment cannot serve it with its one token, and cannot tell
 * that install's data from its own (a shared channel's jobs were filed under the host's id
 * whichever install saw them). Deleting everything then costs the open jobs and settings
 * (the notes stay in Slack's threads); keeping some would leave personal data behind after
 * a signed uninstall. We delete. `app_uninstalled_team` and `team_access_revoked` are sent
 * to org-wide apps only; this one is not (`org_deploy_enabled` false in the manifests).
 */
export function workspaceLeft(deps: ListenerDeps) {
  return async ({
    event,
    body,
  }: SlackEventMiddlewareArgs<"app_uninstalled" | "tokens_revoked"> & AllMiddlewareArgs) => {
    const ids = envelopeTeamIds(body);
    if (ids === undefined) {
      deps.logger.warn({ event: event.type }, "an uninstall event without a team id: ignored");
      return;
    }
    if (event.type === "tokens_revoked") {
      const revoked = revokedSchema.safeParse(event);
      if ((revoked.data?.tokens?.bot ?? []).length === 0) return;
    }
    // With installs, exactly this install's tenants: not another's, even of the same team.
    const install = requestInstall();
    deps.logger.warn({ teamIds: ids, event: event.type }, "the workspace removed the app");
    // Installs by OAuth: that install's record (and its tokens) goes first, so nothing is
    // authorised for it any more.
    if (install !== SINGLE_INSTALL) await deps.deleteInstallation?.(install);
    try {
      await deps.installs.forget(ids, install);
    } catch (error) {
      // Acked already, and sent once: kept, the data is deleted once the store is back.
      if (!isStoreUnavailable(error)) throw error;
      const kept = {
        kind: "forget" as const,
        id: randomUUID(),
        at: deps.now(),
        teamIds: ids,
        ...(install === SINGLE_INSTALL ? {} : { install }),
      };
      if (!(await deps.pending.keep(kept))) throw error;
      deps.logger.warn({ err: error, teamIds: ids }, "store failed: the deletion is kept");
    }
  };
}
