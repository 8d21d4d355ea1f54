import type { CommandResult, Job } from "../../../jobs/index.ts";
import type { JobAction } from "../../permissions.ts";
import { buildCommandRefusal, type JobCommand } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import {
  type ButtonArgs,
  type ButtonClick,
  permittedJob,
  readButton,
  tellClicker,
  unlessStoreDown,
} from "./job-action.ts";

/**
 * A button that maps to one job command (Cancel, Skip, Retry). The clicker must be allowed
 * to (permissions.ts); the status message itself shows the outcome; a refusal (job gone,
 * wrong stage, not theirs to do) is told to the clicker alone, and so is a store that
 * could not apply it.
 */
export function jobCommandButton(
  deps: ListenerDeps,
  action: JobAction,
  command: JobCommand,
  run: (job: Job, click: ButtonClick) => Promise<CommandResult>,
) {
  return async (args: ButtonArgs) => {
    const click = await readButton(deps, args);
    if (click === undefined) return;
    await unlessStoreDown(deps, click, async () => {
      const job = await permittedJob(deps, click, action, command);
      if (job === undefined) return;
      const result = await run(job, click);
      if (result.ok) return;
      const refusal = buildCommandRefusal(result.reason, command, click.locale);
      await tellClicker(deps, click, refusal);
    });
  };
}
