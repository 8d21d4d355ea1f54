import type { App } from "@slack/bolt";
import { VIEWS } from "../../ids.ts";
import type { ListenerDeps } from "../deps.ts";
import { channelSettingsSubmitted } from "./channel-settings.ts";
import { newNotesSubmitted } from "./new-notes.ts";
import { speakerNamesSubmitted } from "./speaker-names.ts";
import { sayingStoreDown } from "./store-guard.ts";

/** A store that fails before the ack is said under the form's first input. */
export function register(app: App, deps: ListenerDeps): void {
  app.view(VIEWS.speakerNames, sayingStoreDown(deps, speakerNamesSubmitted(deps, "names")));
  app.view(VIEWS.regenerate, sayingStoreDown(deps, speakerNamesSubmitted(deps, "regenerate")));
  app.view(VIEWS.newNotes, sayingStoreDown(deps, newNotesSubmitted(deps)));
  app.view(VIEWS.channelSettings, sayingStoreDown(deps, channelSettingsSubmitted(deps)));
}
