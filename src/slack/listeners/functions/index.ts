import type { App } from "@slack/bolt";
import { STEP_CALLBACK_ID } from "../../ids.ts";
import type { ListenerDeps } from "../deps.ts";
import { makeMeetingNotes } from "./make-meeting-notes.ts";

/**
 * Bolt acks `function_executed` itself; the step stays running until the job completes or fails it.
 */
export function register(app: App, deps: ListenerDeps): void {
  app.function(STEP_CALLBACK_ID, makeMeetingNotes(deps));
}
