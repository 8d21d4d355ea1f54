import type { CommandResult, Job } from "../../../jobs/index.ts";
import type { JobAction } from "../../permissions.ts";
import { buildCommandRefusal, type JobCommand } from "../../views/command-replies.ts";
import type { ListenerDeps } from "../deps.ts";
import {
  type ButtonArgs,
  type ButtonClick,
  permittedJob,
  readButton,
  tellClicker,
  unlessStoreDown,
} from "./job-action.ts";

/** Cancel, Skip, Retry: the status message shows the outcome; refusals go to the clicker alone. */
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
