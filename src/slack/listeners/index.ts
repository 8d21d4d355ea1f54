import type { App } from "@slack/bolt";
import { register as registerActions } from "./actions/index.ts";
import { register as registerCommands } from "./commands/index.ts";
import type { ListenerDeps } from "./deps.ts";
import { register as registerEvents } from "./events/index.ts";
import { register as registerFunctions } from "./functions/index.ts";
import { register as registerShortcuts } from "./shortcuts/index.ts";
import { register as registerViews } from "./views/index.ts";

/** One handler per file, grouped by Slack surface. */
export function registerListeners(app: App, deps: ListenerDeps): void {
  registerEvents(app, deps);
  registerCommands(app, deps);
  registerActions(app, deps);
  registerShortcuts(app, deps);
  registerViews(app, deps);
  registerFunctions(app, deps);
}
