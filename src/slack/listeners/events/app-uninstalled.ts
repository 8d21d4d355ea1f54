import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { SINGLE_INSTALL } from "../../../jobs/index.ts";
import { envelopeTeamIds, requestInstall } from "../../installs/request-tenant.ts";
import type { ListenerDeps } from "../deps.ts";
import { forgetRemoved, type Removal } from "../forget-removed.ts";

const revokedSchema = z.looseObject({
  tokens: z.looseObject({ bot: z.array(z.string()).optional() }).optional(),
});
/** https://api.slack.com/events/team_access_revoked: the workspaces the org app lost. */
const teamAccessSchema = z.looseObject({ team_ids: z.array(z.string().min(1)).min(1) });

/**
 * `app_uninstalled`, and `tokens_revoked` naming a bot token: the install is done with the
 * app, so its running jobs stop and all of its data (jobs, settings, templates, temp files)
 * is deleted (docs/data.md), then the store's files are scrubbed, and with installs by
 * OAuth its installation record goes last. Slack sends both, in either order; the second
 * finds nothing. User tokens (`oauth`) alone are not ours to act on: this app asks for none.
 * `team_access_revoked` (an org-ready app's org-wide install lost some workspaces of the
 * organisation) deletes those workspaces' data only. All three go through one unit
 * (`forget-removed.ts`), kept in the request journal when the store fails.
 *
 * With installs by OAuth, a removal naming an install this deployment does not have, or
 * revoking the tokens of a bot that is not the install's, is answered (Bolt acks it) and
 * does nothing.
 *
 * Which data, in the single-token mode: all of it, whatever team id the event names. This
 * app then runs with one bot token, so one install wrote everything in its store, under its
 * tenant (request-tenant.ts) and, before requests had one tenant, under the envelope's
 * `team_id` of an event from a Slack Connect channel (the workspace hosting the channel)
 * and on Enterprise Grid the `enterprise_id` (envelopeTeamIds). A team id that is not the
 * install's own can only come from a second install of the same app (one that has public
 * distribution); this deployment cannot serve it with its one token, and cannot tell that
 * install's data from its own. Deleting everything then costs the open jobs and settings
 * (the notes stay in Slack's threads); keeping some would leave personal data behind after
 * a signed uninstall. We delete.
 */
export function workspaceLeft(deps: ListenerDeps) {
  return async ({
    event,
    body,
  }: SlackEventMiddlewareArgs<"app_uninstalled" | "tokens_revoked" | "team_access_revoked"> &
    AllMiddlewareArgs) => {
    const removal = removalOf(event, body);
    if (removal === undefined) {
      deps.logger.warn({ event: event.type }, "a removal event naming no team: ignored");
      return;
    }
    if (removal === "nothing") return;
    deps.logger.warn(
      { teamIds: removal.teamIds, event: event.type },
      "the workspace removed the app",
    );
    await forgetRemoved(deps, removal);
  };
}

/**
 * What the event removes: the request's install (with installs, exactly its tenants: not
 * another's, even of the same team), and the ids whose data goes; "nothing" for user tokens
 * alone; undefined when the event names no team.
 */
function removalOf(event: { type: string }, body: unknown): Removal | "nothing" | undefined {
  const install = requestInstall();
  const ofInstall = install === SINGLE_INSTALL ? {} : { install };
  if (event.type === "team_access_revoked") {
    const access = teamAccessSchema.safeParse(event);
    if (!access.success) return undefined;
    return { teamIds: access.data.team_ids, ...ofInstall, scope: "workspaces" };
  }
  const teamIds = envelopeTeamIds(body);
  if (teamIds === undefined) return undefined;
  if (event.type !== "tokens_revoked") return { teamIds, ...ofInstall };
  const bots = revokedSchema.safeParse(event).data?.tokens?.bot ?? [];
  return bots.length === 0 ? "nothing" : { teamIds, ...ofInstall, botUserIds: bots };
}
