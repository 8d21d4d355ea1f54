import type { App } from "@slack/bolt";
import type { ListenerDeps } from "../deps.ts";
import { appHomeOpened } from "./app-home-opened.ts";
import { fileShareMessage } from "./file-share-message.ts";
import { fileShared } from "./file-shared.ts";

/** Events: uploads (two event shapes, one job) and App Home. Bolt acks events itself. */
export function register(app: App, deps: ListenerDeps): void {
  app.event("message", fileShareMessage(deps));
  app.event("file_shared", fileShared(deps));
  app.event("app_home_opened", appHomeOpened(deps));
}
