import type { StepContext } from "../engine/step.ts";
import type { JobEvent } from "../model/events.ts";
import type { ActiveJob, ActiveStage, Job, JobIn } from "../model/job.ts";
import type { Reducers } from "../model/job-records.ts";
import { deliveringReducers, deliveringStep } from "./delivering.ts";
import { downloadingReducers, downloadingStep } from "./downloading.ts";
import { namingReducers, namingStep } from "./naming.ts";
import { preparingReducers, preparingStep } from "./preparing.ts";
import { queuedReducers, queuedStep } from "./queued.ts";
import { reviewingReducers, reviewingStep } from "./reviewing.ts";
import { transcribingReducers, transcribingStep } from "./transcribing.ts";
import { writingReducers, writingStep } from "./writing.ts";

export { MAX_RELINKS } from "../model/job-records.ts";

const STAGES: { [S in ActiveStage]: { reducers: Reducers<S>; step: Step<S> } } = {
  queued: { reducers: queuedReducers, step: queuedStep },
  downloading: { reducers: downloadingReducers, step: downloadingStep },
  preparing: { reducers: preparingReducers, step: preparingStep },
  transcribing: { reducers: transcribingReducers, step: transcribingStep },
  naming: { reducers: namingReducers, step: namingStep },
  writing: { reducers: writingReducers, step: writingStep },
  reviewing: { reducers: reviewingReducers, step: reviewingStep },
  delivering: { reducers: deliveringReducers, step: deliveringStep },
};

type Step<S extends ActiveStage> = (ctx: StepContext, job: JobIn<S>) => Promise<Job>;

/** Steps that move recordings or documents: few of them run at once. */
export function isTransfer(job: ActiveJob): boolean {
  return (
    job.stage === "downloading" ||
    job.stage === "delivering" ||
    (job.stage === "reviewing" && job.ready !== true) ||
    (job.stage === "transcribing" && job.audio.taskId === undefined)
  );
}

export function runStep(ctx: StepContext, job: ActiveJob): Promise<Job> {
  // The table is keyed by the job's own stage, so its step takes this job.
  const step = STAGES[job.stage].step as Step<ActiveStage>;
  return step(ctx, job as JobIn<ActiveStage>);
}

export function reduceInStage(job: ActiveJob, event: JobEvent, now: number): Job | undefined {
  const reducers = STAGES[job.stage].reducers as Reducers<ActiveStage>;
  const reducer = reducers[event.type] as
    | ((job: ActiveJob, event: JobEvent, now: number) => Job | undefined)
    | undefined;
  return reducer?.(job, event, now);
}
