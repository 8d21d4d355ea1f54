import { stat } from "node:fs/promises";
import { checkDownload } from "../check-download.ts";
import { JobStepError } from "../failure-policy.ts";
import type { Job, JobIn } from "../job.ts";
import type { StepContext } from "../step.ts";
import { enter, NEW_POLL, type Reducers } from "./kit.ts";

/** The recording on its way from Slack to the temp folder. */
export const downloadingReducers: Reducers<"downloading"> = {
  downloaded: (job, _event, now) =>
    enter(job, "transcribing", now, { tempPath: job.tempPath, audio: { ...NEW_POLL } }),
};

/** Downloads the recording, then looks at its first bytes before the Note Service may. */
export async function downloadingStep(ctx: StepContext, job: JobIn<"downloading">): Promise<Job> {
  await ctx.gateway.downloadSource(job, job.tempPath, ctx.signal);
  const size = await stat(job.tempPath).then(
    (s) => s.size,
    () => 0,
  );
  if (size === 0) throw new JobStepError({ code: "download_failed" }, true);
  // Before any Note Service call; a failure here deletes the copy (the runner's clean-up).
  await checkDownload(job.tempPath);
  return ctx.showStatus(await ctx.commit(job, { type: "downloaded" }), "stage");
}
