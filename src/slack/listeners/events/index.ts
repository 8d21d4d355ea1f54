import type { App } from "@slack/bolt";
import type { ListenerDeps } from "../deps.ts";
import { appHomeOpened } from "./app-home-opened.ts";
import { workspaceLeft } from "./app-uninstalled.ts";
import { fileShareMessage } from "./file-share-message.ts";
import { threadMention } from "./thread-mention.ts";

/** `file_shared` (ids only) starts nothing: the `file_share` message carries files and text. */
export function register(app: App, deps: ListenerDeps): void {
  app.event("message", fileShareMessage(deps));
  app.event("message", threadMention(deps));
  app.event("app_home_opened", appHomeOpened(deps));
  app.event("app_uninstalled", workspaceLeft(deps));
  app.event("tokens_revoked", workspaceLeft(deps));
  app.event("team_access_revoked", workspaceLeft(deps));
}
