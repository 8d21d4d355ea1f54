import { buildCommandRefusal, buildSpeakerModal } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { type ButtonArgs, permittedJob, readButton, tellClicker } from "./job-action.ts";

/**
 * "Name speakers" (job waiting for names) and "Regenerate" (job done) open the speaker
 * modal for whoever may do it; `trigger_id` is valid for ~3 s, so the modal opens before
 * anything slow (the quotes are one store read).
 */
export function openSpeakerModal(deps: ListenerDeps, mode: "names" | "regenerate") {
  return async (args: ButtonArgs) => {
    const click = await readButton(deps, args);
    if (click === undefined || click.triggerId === undefined) return;
    const job = await permittedJob(deps, args, click, mode, mode);
    if (job === undefined) return;
    const fits = mode === "names" ? job.stage === "naming" : job.stage === "done";
    const waitMs = mode === "regenerate" ? deps.jobs.regenerateWaitMs(job) : 0;
    if (!fits || waitMs > 0) {
      const reason = fits ? "cooldown" : "wrong_stage";
      await tellClicker(deps, args, click, buildCommandRefusal(reason, mode, click.locale, waitMs));
      return;
    }
    const quotes = await deps.jobs.quotesOf(job);
    await args.client.views.open({
      trigger_id: click.triggerId,
      view: buildSpeakerModal(job, { locale: click.locale, mode, quotes }),
    });
  };
}
