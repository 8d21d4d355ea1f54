import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { type CommandResult, isStoreUnavailable, type Job } from "../../../jobs/index.ts";
import { platformErrorOf } from "../../gateway/slack-errors.ts";
import { type Locale, localeOf, t } from "../../messages/catalog.ts";
import type { Decision, JobAction } from "../../permissions.ts";
import {
  buildCommandRefusal,
  buildPermissionRefusal,
  type JobCommand,
} from "../../views/command-replies.ts";
import type { MessageContent } from "../../views/message-content.ts";
import { sentenceReply } from "../../views/notice-modal.ts";
import { reviewOutcome } from "../../views/review-message.ts";
import type { ListenerDeps } from "../deps.ts";
import { requestJob } from "../request-job.ts";

export type ButtonArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

const buttonSchema = z.object({
  actions: z.array(z.looseObject({ value: z.string().min(1).max(100) })).min(1),
  user: z.looseObject({ id: z.string().min(1) }),
  trigger_id: z.string().optional(),
  channel: z.looseObject({ id: z.string() }).optional(),
  message: z.looseObject({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  response_url: z.string().min(1).optional(),
  /** Bolt's own fixtures carry only this. */
  container: z
    .looseObject({ message_ts: z.string().optional(), thread_ts: z.string().optional() })
    .optional(),
});

/**
 * Acks at once and looks nothing up (a trigger_id is short-lived); undefined if not ours.
 * `messageTs` is the status message only if the click is genuine; `responseUrl` reaches the
 * clicker alone even when they are not in the channel.
 */
export async function readClick(deps: ListenerDeps, args: ButtonArgs) {
  await args.ack();
  const parsed = buttonSchema.safeParse(args.body);
  if (!parsed.success) {
    deps.logger.warn({ issues: parsed.error.issues.slice(0, 2) }, "unreadable button payload");
    return undefined;
  }
  const { actions, user, trigger_id, channel, message, container, response_url } = parsed.data;
  const messageTs = message?.ts ?? container?.message_ts;
  return {
    jobId: actions[0]?.value ?? "",
    userId: user.id,
    triggerId: trigger_id,
    channelId: channel?.id,
    messageTs,
    threadTs: message?.thread_ts ?? container?.thread_ts ?? messageTs,
    responseUrl: response_url,
  };
}

export type Click = NonNullable<Awaited<ReturnType<typeof readClick>>>;
export type ButtonClick = Click & { locale: Locale };

/** {@link readClick}, plus the clicker's language (a `users.info` the first time). */
export async function readButton(
  deps: ListenerDeps,
  args: ButtonArgs,
): Promise<ButtonClick | undefined> {
  const click = await readClick(deps, args);
  if (click === undefined) return undefined;
  return { ...click, locale: await clickerLocale(deps, click.userId) };
}

export async function clickerLocale(deps: ListenerDeps, userId: string): Promise<Locale> {
  return localeOf((await deps.directory.user(userId)).locale);
}

/** Otherwise tells the clicker why not and resolves undefined. */
export async function permittedJob(
  deps: ListenerDeps,
  click: ButtonClick,
  action: JobAction,
  command: JobCommand,
): Promise<Job | undefined> {
  const job = await requestJob(deps, click.jobId);
  if (job === undefined) {
    logRefusal(deps, click, action, "not_found");
    await tellClicker(deps, click, buildCommandRefusal("not_found", command, click.locale));
    return undefined;
  }
  const decision = await mayClick(deps, action, job, click);
  if (decision.ok) return job;
  await tellClicker(deps, click, buildPermissionRefusal(decision.reason, action, click.locale));
  return undefined;
}

/** permissions.ts decides, from where the click came; a refusal is logged. */
export async function mayClick(
  deps: ListenerDeps,
  action: JobAction,
  job: Job,
  click: Click,
): Promise<Decision> {
  const decision = await deps.permissions.jobAction(action, job, click.userId, click);
  if (!decision.ok) logRefusal(deps, click, action, decision.reason);
  return decision;
}

function logRefusal(deps: ListenerDeps, click: Click, action: JobAction, refused: string): void {
  const { jobId, userId } = click;
  deps.logger.info({ jobId, userId, action, refused }, "job action refused");
}

/**
 * Slack refuses an ephemeral to someone not in the channel (`user_not_in_channel`), who can
 * still click: the click's own `response_url` then reaches them. Failures are only logged.
 */
export async function tellClicker(
  deps: ListenerDeps,
  click: Click,
  content: MessageContent,
): Promise<void> {
  if (click.channelId === undefined) return;
  try {
    const target = { channel: click.channelId, user: click.userId };
    await deps.responder.ephemeral(
      click.threadTs ? { ...target, threadTs: click.threadTs } : target,
      content,
    );
  } catch (error) {
    const code = platformErrorOf(error);
    if (code === "user_not_in_channel" && click.responseUrl !== undefined) {
      await deps.respond(click.responseUrl, content);
      return;
    }
    deps.logger.warn({ err: error, channel: click.channelId }, "could not send an ephemeral reply");
  }
}

/** Acked clicks are never resent, so a store failure is told once; the button stays for later. */
export async function unlessStoreDown<T>(
  deps: ListenerDeps,
  click: Click | ButtonClick,
  work: () => Promise<T>,
): Promise<{ value: T } | undefined> {
  try {
    return { value: await work() };
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    deps.logger.warn({ err: error, jobId: click.jobId }, "store failed: a click was not applied");
    const locale = "locale" in click ? click.locale : await clickerLocale(deps, click.userId);
    await tellClicker(deps, click, sentenceReply(t(locale, "store.unavailable")));
    return undefined;
  }
}

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
    const { review } = job;
    if (!result.ok || review === undefined) return result satisfies CommandResult;
    const state = decision === "post" ? "posted" : "discarded";
    // In the reviewer's DM: their language, whoever clicked.
    const content = reviewOutcome(job, { state, by: click.userId }, localeOf(job.origin.locale));
    await deps.responder
      .updateMessage({ channel: review.channelId, ts: review.ts }, content)
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, jobId: job.id }, "could not edit the review"),
      );
    return result;
  });
}
