import type { App } from "@slack/bolt";
import { ACTIONS } from "../../ids.ts";
import { speakerMapFor } from "../../views/speaker-map.ts";
import type { ListenerDeps } from "../deps.ts";
import { openSpeakerModal } from "./open-speaker-modal.ts";
import { reviewButton } from "./review-buttons.ts";
import { jobCommandButton } from "./simple-commands.ts";
import { speakerPagePrevious } from "./speaker-page.ts";

/** Each button carries its job id as `value`. */
export function register(app: App, deps: ListenerDeps): void {
  app.action(
    ACTIONS.cancel,
    jobCommandButton(deps, "cancel", "cancel", (job, c) => deps.jobs.cancel(job.id, c.userId)),
  );
  app.action(
    ACTIONS.skipNaming,
    // Skipping names every speaker with a neutral label in the clicker's language.
    jobCommandButton(deps, "skip", "names", (job, c) =>
      deps.jobs.submitNames(job.id, speakerMapFor(job, new Map(), c.locale)),
    ),
  );
  app.action(
    ACTIONS.retry,
    jobCommandButton(deps, "retry", "retry", (job) => deps.jobs.retry(job.id)),
  );
  app.action(ACTIONS.nameSpeakers, openSpeakerModal(deps, "names"));
  // Also "Change names" on a review, in the reviewer's direct message.
  app.action(ACTIONS.regenerate, openSpeakerModal(deps, "regenerate"));
  app.action(ACTIONS.postReview, reviewButton(deps, "post"));
  app.action(ACTIONS.discardReview, reviewButton(deps, "discard"));
  app.action(ACTIONS.speakersPrevious, speakerPagePrevious(deps));
  // A link button: Slack opens the URL, but the click still needs an ack.
  app.action(ACTIONS.openThread, async ({ ack }) => {
    await ack();
  });
}
