import type { CommandResult, Job } from "../../../jobs/index.ts";
import { localeOf } from "../../messages/index.ts";
import { reviewOutcome } from "../../views/index.ts";
import type { ListenerDeps } from "../deps.ts";
import type { ButtonClick } from "./job-action.ts";
import { jobCommandButton } from "./simple-commands.ts";

/**
 * **Post to thread** and **Discard**, on a review's first message in the reviewer's direct
 * message: for the person who started the job or a workspace admin, from that message only
 * (permissions.ts), checked as Slack has them now. The job service applies each under the
 * job's lease, once: a second click, from anyone on any replica, finds the job gone from
 * its review and hears so. Once applied, the message says what became of the note (an
 * edit, which Slack takes again alike); the thread's status message says it too.
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
  // In the reviewer's direct message: in their language, whoever clicked.
  const content = reviewOutcome(job, { state, by: click.userId }, localeOf(job.origin.locale));
  await deps.responder
    .updateMessage({ channel: review.channelId, ts: review.ts }, content)
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, jobId: job.id }, "could not edit the review"),
    );
}
