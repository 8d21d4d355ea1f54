import type { App } from "@slack/bolt";
import { VIEWS } from "../../ids.ts";
import type { ListenerDeps } from "../deps.ts";
import { channelSettingsSubmitted } from "./channel-settings.ts";
import { newNotesSubmitted } from "./new-notes.ts";
import { speakerNamesSubmitted } from "./speaker-names.ts";

/** Modal submissions: answered within 3 s, errors under the inputs when the look-ups allow. */
export function register(app: App, deps: ListenerDeps): void {
  app.view(VIEWS.speakerNames, speakerNamesSubmitted(deps, "names"));
  app.view(VIEWS.regenerate, speakerNamesSubmitted(deps, "regenerate"));
  app.view(VIEWS.newNotes, newNotesSubmitted(deps));
  app.view(VIEWS.channelSettings, channelSettingsSubmitted(deps));
}
