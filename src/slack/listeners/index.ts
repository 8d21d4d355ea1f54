import type { App } from "@slack/bolt";
import { ACTIONS, SHORTCUTS, STEP_CALLBACK_ID, VIEWS } from "../ids.ts";
import { speakerMapFor } from "../views/speaker-form.ts";
import { jobCommandButton, reviewButton } from "./actions/job-action.ts";
import { openSpeakerModal, speakerPagePrevious } from "./actions/open-speaker-modal.ts";
import { meetingNotesCommand } from "./commands/meeting-notes.ts";
import type { ListenerDeps } from "./deps.ts";
import { appHomeOpened } from "./events/app-home-opened.ts";
import { workspaceLeft } from "./events/app-uninstalled.ts";
import { fileShareMessage } from "./events/file-share-message.ts";
import { threadMention } from "./events/thread-mention.ts";
import { makeMeetingNotes } from "./functions/make-meeting-notes.ts";
import { makeNotesShortcut } from "./shortcuts/make-notes.ts";
import { channelSettingsSubmitted } from "./views/channel-settings.ts";
import { sayingStoreDown } from "./views/modal-submission.ts";
import { newNotesSubmitted } from "./views/new-notes.ts";
import { speakerNamesSubmitted } from "./views/speaker-names.ts";

export const COMMAND = "/meeting-notes";

/** One handler per file, grouped by Slack surface. */
export function registerListeners(app: App, deps: ListenerDeps): void {
  // `file_shared` (ids only) starts nothing: the `file_share` message carries files and text.
  app.event("message", fileShareMessage(deps));
  app.event("message", threadMention(deps));
  app.event("app_home_opened", appHomeOpened(deps));
  for (const left of ["app_uninstalled", "tokens_revoked", "team_access_revoked"] as const) {
    app.event(left, workspaceLeft(deps));
  }
  app.command(COMMAND, meetingNotesCommand(deps));
  registerActions(app, deps);
  // "Make meeting notes" in a message's menu.
  app.shortcut(
    { type: "message_action", callback_id: SHORTCUTS.makeNotes },
    makeNotesShortcut(deps),
  );
  // A store that fails before the ack is said under the form's first input.
  app.view(VIEWS.speakerNames, sayingStoreDown(deps, speakerNamesSubmitted(deps, "names")));
  app.view(VIEWS.regenerate, sayingStoreDown(deps, speakerNamesSubmitted(deps, "regenerate")));
  app.view(VIEWS.newNotes, sayingStoreDown(deps, newNotesSubmitted(deps)));
  app.view(VIEWS.channelSettings, sayingStoreDown(deps, channelSettingsSubmitted(deps)));
  // Bolt acks `function_executed` itself; the step stays running until the job completes or fails it.
  app.function(STEP_CALLBACK_ID, makeMeetingNotes(deps));
}

/** Each button carries its job id as `value`. */
export function registerActions(app: App, deps: ListenerDeps): void {
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
