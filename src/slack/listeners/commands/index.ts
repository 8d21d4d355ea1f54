import type { App } from "@slack/bolt";
import type { ListenerDeps } from "../deps.ts";
import { meetingNotesCommand } from "./meeting-notes.ts";

export const COMMAND = "/meeting-notes";

export function register(app: App, deps: ListenerDeps): void {
  app.command(COMMAND, meetingNotesCommand(deps));
}
