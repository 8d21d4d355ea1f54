import { optional } from "../../util/optional.ts";
import { audioPath, isFile, removeJobFile } from "../files/job-files.ts";
import type { Job, JobIn } from "../model/job.ts";
import { summarizeSpeakers } from "../model/speaker-summary.ts";
import { JobStepError } from "./failure-policy.ts";
import { checkLimit, type StepContext } from "./step-context.ts";

export async function transcribingStep(ctx: StepContext, job: JobIn<"transcribing">): Promise<Job> {
  checkLimit(ctx, job, ctx.limits.transcribingMs);
  const { taskId } = job.audio;
  if (taskId === undefined) return submitAudio(ctx, job);
  const task = await ctx.client.getAudioTask(taskId, ctx.signal);
  if (task.status === "running") {
    // The next poll comes sooner when progress says the end is near (the guide's bounds).
    const now = ctx.now();
    const { audio } = job;
    const plan = ctx.schedule.afterRunning({
      attempt: audio.pollAttempt,
      trail: audio.trail,
      progress: task.progress,
      now,
    });
    const polled = await ctx.commit(job, {
      type: "audio_polled",
      progress: task.progress,
      trail: plan.trail,
      wakeAt: now + plan.waitMs,
    });
    return ctx.showStatus(polled, "progress");
  }
  if (task.status === "failed") {
    throw new JobStepError({ code: "task_failed", detail: task.message }, true);
  }
  const dialog = await ctx.client.fetchDialog(task.result.dialogUrl, ctx.signal);
  if (!dialog.some((entry) => entry.text.trim() !== "")) {
    throw new JobStepError({ code: "no_speech" }, false);
  }
  return ctx.commit(job, { type: "transcribed", dialog, ...summarizeSpeakers(dialog) });
}

async function submitAudio(ctx: StepContext, job: JobIn<"transcribing">): Promise<Job> {
  const { tempPath } = job;
  if (tempPath === undefined || !(await isFile(tempPath))) {
    // Downloaded by another replica, or lost with a container's disk: download it here.
    return ctx.commit(job, { type: "source_missing", tempPath: audioPath(ctx, job) });
  }
  // The intent is saved first: the API has no idempotency key, so a crash can make a second task
  // only within this one call (docs/faults.md).
  const submitting = await ctx.update(job, { type: "audio_submitting" });
  const taskId = await ctx.client.submitAudio(
    {
      path: tempPath,
      filename: job.audioName ?? job.source.filename,
      ...optional("speakers", job.options.speakers),
      ...optional("contextText", job.options.contextText),
      ...optional("languageHint", job.options.languageHint),
    },
    ctx.signal,
  );
  const wakeAt = ctx.now() + ctx.schedule.delayMs(0);
  const submitted = await ctx.commit(submitting, { type: "audio_submitted", taskId, wakeAt });
  // The service has the recording: the local copy goes at once.
  await removeJobFile(ctx, tempPath);
  return submitted;
}
