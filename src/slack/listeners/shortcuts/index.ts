import type { App } from "@slack/bolt";
import { SHORTCUTS } from "../../ids.ts";
import type { ListenerDeps } from "../deps.ts";
import { makeNotesShortcut } from "./make-notes.ts";

/** "Make meeting notes" in a message's menu. */
export function register(app: App, deps: ListenerDeps): void {
  app.shortcut(
    { type: "message_action", callback_id: SHORTCUTS.makeNotes },
    makeNotesShortcut(deps),
  );
}
