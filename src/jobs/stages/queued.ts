import type { StepContext } from "../engine/step.ts";
import { audioPath } from "../files/job-files.ts";
import type { Job, JobIn } from "../model/job.ts";
import { advance, enter, type Reducers } from "../model/job-records.ts";

export const queuedReducers: Reducers<"queued"> = {
  admission_waiting: (job, event) =>
    advance(job, event.wakeAt, {
      ahead: event.ahead,
    }),
  download_started: (job, event, now) =>
    enter(job, "downloading", now, { tempPath: event.tempPath }),
};

/** Until a slot is free the job waits, and its status says how many recordings are ahead. */
export async function queuedStep(ctx: StepContext, job: JobIn<"queued">): Promise<Job> {
  const place = await ctx.admission.request(job);
  if (!place.admitted) {
    // A freed slot kicks the job sooner.
    const wakeAt = ctx.now() + ctx.schedule.delayMs(Number.MAX_SAFE_INTEGER);
    const waiting = await ctx.commit(job, {
      type: "admission_waiting",
      ahead: place.ahead,
      wakeAt,
    });
    return place.ahead === job.ahead ? waiting : ctx.showStatus(waiting, "stage");
  }
  const shown = await ctx.showStatus(job, "stage");
  return ctx.commit(shown, { type: "download_started", tempPath: audioPath(ctx, job) });
}
