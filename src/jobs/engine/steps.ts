import { audioPath } from "../files/job-files.ts";
import type { ActiveJob, Job, JobIn } from "../model/job.ts";
import type { ActiveStage } from "../model/job-parts.ts";
import { deliveringStep } from "./delivering.ts";
import { downloadingStep } from "./downloading.ts";
import { preparingStep } from "./preparing.ts";
import { reviewingStep } from "./reviewing.ts";
import type { StepContext } from "./step-context.ts";
import { transcribingStep } from "./transcribing.ts";
import { writingStep } from "./writing.ts";

type Step<S extends ActiveStage> = (ctx: StepContext, job: JobIn<S>) => Promise<Job>;

/** Each active stage's step: its I/O, recorded through events `model/transitions.ts` applies. */
const STEPS: { [S in ActiveStage]: Step<S> } = {
  queued: queuedStep,
  downloading: downloadingStep,
  preparing: preparingStep,
  transcribing: transcribingStep,
  naming: namingStep,
  writing: writingStep,
  reviewing: reviewingStep,
  delivering: deliveringStep,
};

/** Runs the next piece of work of an active job and returns the job as it then stands. */
export function runStep(ctx: StepContext, job: ActiveJob): Promise<Job> {
  // The table is keyed by the job's own stage, so its step takes this job.
  const step = STEPS[job.stage] as Step<ActiveStage>;
  return step(ctx, job as JobIn<ActiveStage>);
}

/** Steps that move recordings or documents: few of them run at once. */
export function isTransfer(job: ActiveJob): boolean {
  return (
    job.stage === "downloading" ||
    job.stage === "delivering" ||
    (job.stage === "reviewing" && job.ready !== true) ||
    (job.stage === "transcribing" && job.audio.taskId === undefined)
  );
}

/** Until a slot is free the job waits, and its status says how many recordings are ahead. */
async function queuedStep(ctx: StepContext, job: JobIn<"queued">): Promise<Job> {
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

/** Asks for the speakers' names, then waits for a person: no timer until they answer. */
async function namingStep(ctx: StepContext, job: JobIn<"naming">): Promise<Job> {
  const shown = await ctx.showStatus(job, "required");
  return ctx.commit(shown, { type: "awaiting_names" });
}
