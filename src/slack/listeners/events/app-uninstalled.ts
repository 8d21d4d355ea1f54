import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import type { ListenerDeps } from "../deps.ts";

const envelopeSchema = z.looseObject({ team_id: z.string().min(1) });
const revokedSchema = z.looseObject({
  tokens: z.looseObject({ bot: z.array(z.string()).optional() }).optional(),
});

/**
 * `app_uninstalled`, and `tokens_revoked` naming a bot token: the workspace is done with
 * the app, so its running jobs stop and its data (jobs, settings, templates, temp files)
 * is deleted (README "Data"). Slack sends both, in either order; the second finds nothing.
 * User tokens (`oauth`) alone are not ours to act on: this app asks for none.
 */
export function workspaceLeft(deps: ListenerDeps) {
  return async ({
    event,
    body,
  }: SlackEventMiddlewareArgs<"app_uninstalled" | "tokens_revoked"> & AllMiddlewareArgs) => {
    const envelope = envelopeSchema.safeParse(body);
    if (!envelope.success) return;
    if (event.type === "tokens_revoked") {
      const revoked = revokedSchema.safeParse(event);
      if ((revoked.data?.tokens?.bot ?? []).length === 0) return;
    }
    const teamId = envelope.data.team_id;
    deps.logger.warn({ teamId, event: event.type }, "the workspace removed the app");
    await deps.jobs.forgetWorkspace(teamId);
  };
}
