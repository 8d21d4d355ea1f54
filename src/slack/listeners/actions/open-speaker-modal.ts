import { buildCommandRefusal, buildSpeakerModal } from "../../views/index.ts";
import { type ListenerDeps, tellUser } from "../deps.ts";
import { type ButtonArgs, readButton } from "./job-action.ts";

/**
 * "Name speakers" (job waiting for names) and "Regenerate" (job done) open the speaker
 * modal; `trigger_id` is valid for ~3 s, so the modal opens before anything slow.
 */
export function openSpeakerModal(deps: ListenerDeps, mode: "names" | "regenerate") {
  return async (args: ButtonArgs) => {
    const click = await readButton(deps, args);
    if (click === undefined || click.triggerId === undefined) return;
    const job = await deps.jobs.get(click.jobId);
    const fits = mode === "names" ? job?.stage === "naming" : job?.stage === "done";
    if (job === undefined || !fits) {
      if (click.channelId === undefined) return;
      const reason = job === undefined ? "not_found" : "wrong_stage";
      const command = mode === "names" ? "names" : "regenerate";
      await tellUser(
        args.client,
        deps.logger,
        { channel: click.channelId, user: click.userId },
        buildCommandRefusal(reason, command, click.locale),
      );
      return;
    }
    await args.client.views.open({
      trigger_id: click.triggerId,
      view: buildSpeakerModal(job, { locale: click.locale, mode }),
    });
  };
}
