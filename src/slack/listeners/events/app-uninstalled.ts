import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { SINGLE_INSTALL } from "../../../jobs/index.ts";
import { envelopeTeamIds, requestInstall } from "../../installs/request-tenant.ts";
import type { ListenerDeps } from "../deps.ts";
import { forgetRemoved, type Removal } from "../forget-removed.ts";

const revokedSchema = z.looseObject({
  tokens: z.looseObject({ bot: z.array(z.string()).optional() }).optional(),
});
/** https://api.slack.com/events/team_access_revoked */
const teamAccessSchema = z.looseObject({ team_ids: z.array(z.string().min(1)).min(1) });

/**
 * An uninstall or a revoked bot token deletes all the install's data (docs/data.md), a revoked
 * team only its own. In the single-token mode everything goes, whatever team the event names: one
 * install wrote the whole store, and personal data left after an uninstall is worse than lost jobs.
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

/** Exactly the request's install (not another of its team); "nothing" for user tokens alone. */
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
