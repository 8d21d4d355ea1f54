import { randomUUID } from "node:crypto";
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { isStoreUnavailable, SINGLE_INSTALL } from "../../../jobs/index.ts";
import { requestInstall } from "../../installs/request-install.ts";
import type { ListenerDeps } from "../deps.ts";

/** An id the envelope may carry; anything odd in it is dropped, never a reason to keep data. */
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
 * token, so one install wrote everything in its store, under several ids: the envelope's
 * `team_id` of an event from a Slack Connect channel is the workspace hosting the channel
 * (the install's own is in `authorizations`), and on Enterprise Grid there is also the
 * `enterprise_id`. Slack sends `app_uninstalled` when the app is uninstalled (its
 * `team_id` is the workspace that uninstalled it) and `tokens_revoked` when the tokens of
 * an install are revoked: both are about an install of this app, never about a partner
 * that merely shares a channel with it, which has no install to remove. A team id that is
 * not the install's own can only come from a second install of the same app (one that has
 * public distribution); this deployment cannot serve it with its one token, and cannot tell
 * that install's data from its own (a shared channel's jobs are filed under the host's id
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
    const envelope = envelopeSchema.safeParse(body);
    if (!envelope.success) {
      deps.logger.warn({ event: event.type }, "an uninstall event without a team id: ignored");
      return;
    }
    if (event.type === "tokens_revoked") {
      const revoked = revokedSchema.safeParse(event);
      if ((revoked.data?.tokens?.bot ?? []).length === 0) return;
    }
    const ids = namedIds(envelope.data);
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

/** The team and enterprise ids the envelope names, the install's and the event's, once each. */
function namedIds(envelope: z.infer<typeof envelopeSchema>): string[] {
  const ids = [
    envelope.team_id,
    envelope.enterprise_id,
    envelope.context_team_id,
    envelope.context_enterprise_id,
    ...(envelope.authorizations ?? []).flatMap((a) => [a.team_id, a.enterprise_id]),
  ];
  return [...new Set(ids.filter((id): id is string => typeof id === "string"))];
}
