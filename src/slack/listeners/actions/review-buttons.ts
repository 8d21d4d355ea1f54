import type { CommandResult, Job } from "../../../jobs/index.ts";
import { localeOf } from "../../messages/catalog.ts";
import { reviewOutcome } from "../../views/review-message.ts";
import type { ListenerDeps } from "../deps.ts";
import type { ButtonClick } from "./job-action.ts";
import { jobCommandButton } from "./simple-commands.ts";

/**
 * From the review's message only, for the starter or an admin (permissions.ts). The job service
 * applies each once under the job's lease: a second click, on any replica, hears it is over.
 */
export function reviewButton(deps: ListenerDeps, decision: "post" | "discard") {
  return jobCommandButton(deps, decision, "review", async (job, click) => {
    const result =
      decision === "post"
        ? await deps.jobs.postReviewed(job.id, click.userId)
        : await deps.jobs.discardReview(job.id, click.userId);
    if (result.ok) await showOutcome(deps, job, click, decision);
    return result satisfies CommandResult;
  });
}

async function showOutcome(
  deps: ListenerDeps,
  job: Job,
  click: ButtonClick,
  decision: "post" | "discard",
): Promise<void> {
  const { review } = job;
  if (review === undefined) return;
  const state = decision === "post" ? "posted" : "discarded";
  // In the reviewer's DM: their language, whoever clicked.
  const content = reviewOutcome(job, { state, by: click.userId }, localeOf(job.origin.locale));
  await deps.responder
    .updateMessage({ channel: review.channelId, ts: review.ts }, content)
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, jobId: job.id }, "could not edit the review"),
    );
}
