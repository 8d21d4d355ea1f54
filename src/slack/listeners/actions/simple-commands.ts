import type { CommandResult } from "../../../jobs/index.ts";
import { buildCommandRefusal, type JobCommand } from "../../views/index.ts";
import { type ListenerDeps, tellUser } from "../deps.ts";
import { type ButtonArgs, type ButtonClick, readButton } from "./job-action.ts";

/**
 * A button that maps to one job command (Cancel, Skip, Retry). The status message itself
 * shows the outcome; a refusal (job gone, wrong stage) is told to the clicker alone.
 */
export function jobCommandButton(
  deps: ListenerDeps,
  command: JobCommand,
  run: (click: ButtonClick) => Promise<CommandResult>,
) {
  return async (args: ButtonArgs) => {
    const click = await readButton(deps, args);
    if (click === undefined) return;
    const result = await run(click);
    if (result.ok || click.channelId === undefined) return;
    await tellUser(
      args.client,
      deps.logger,
      {
        channel: click.channelId,
        user: click.userId,
        ...(click.threadTs ? { threadTs: click.threadTs } : {}),
      },
      buildCommandRefusal(result.reason, command, click.locale),
    );
  };
}
