import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { isStoreUnavailable, type Job } from "../../../jobs/index.ts";
import { platformErrorOf } from "../../gateway/slack-errors.ts";
import { type Locale, localeOf, t } from "../../messages/index.ts";
import type { JobAction } from "../../permissions.ts";
import {
  buildCommandRefusal,
  buildPermissionRefusal,
  type JobCommand,
  type MessageContent,
  sentenceReply,
} from "../../views/index.ts";
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
  /** Where the button sits, as Slack also says it (bolt's own fixtures have only this). */
  container: z
    .looseObject({ message_ts: z.string().optional(), thread_ts: z.string().optional() })
    .optional(),
});

export interface ButtonClick {
  jobId: string;
  userId: string;
  triggerId: string | undefined;
  channelId: string | undefined;
  /** The message the button sits on (the job's status message, if the click is genuine). */
  messageTs: string | undefined;
  threadTs: string | undefined;
  /** Where a reply reaches the clicker alone even when they are not in the channel. */
  responseUrl: string | undefined;
  locale: Locale;
}

/** A click as read from its payload alone, before anything is looked up. */
export type Click = Omit<ButtonClick, "locale">;

/**
 * Acks a status-message button at once and reads what every job button carries: the job
 * id in `value`, who clicked, where. Nothing is looked up (a modal's trigger_id is short
 * lived). Undefined for a payload that is not one of ours.
 */
export async function readClick(deps: ListenerDeps, args: ButtonArgs): Promise<Click | undefined> {
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

/** {@link readClick}, and the clicker's language (a `users.info` the first time). */
export async function readButton(
  deps: ListenerDeps,
  args: ButtonArgs,
): Promise<ButtonClick | undefined> {
  const click = await readClick(deps, args);
  if (click === undefined) return undefined;
  return { ...click, locale: await clickerLocale(deps, click.userId) };
}

/** The clicker's language, as their Slack locale says. */
export async function clickerLocale(deps: ListenerDeps, userId: string): Promise<Locale> {
  return localeOf((await deps.directory.user(userId)).locale);
}

/**
 * The job a click is about, when the clicker may do `action` to it; otherwise tells them
 * why not (the job is gone, or who can do it) and resolves undefined. Nothing changes.
 */
export async function permittedJob(
  deps: ListenerDeps,
  click: ButtonClick,
  action: JobAction,
  command: JobCommand,
): Promise<Job | undefined> {
  const job = await requestJob(deps, click.jobId);
  const decision =
    job === undefined
      ? undefined
      : await deps.permissions.jobAction(action, job, click.userId, {
          channelId: click.channelId,
          messageTs: click.messageTs,
          threadTs: click.threadTs,
        });
  if (job !== undefined && decision?.ok === true) return job;
  await tellClicker(
    deps,
    click,
    decision === undefined || decision.ok
      ? buildCommandRefusal("not_found", command, click.locale)
      : buildPermissionRefusal(decision.reason, action, click.locale),
  );
  deps.logger.info(
    {
      jobId: click.jobId,
      userId: click.userId,
      action,
      refused: decision?.ok === false ? decision.reason : "not_found",
    },
    "job action refused",
  );
  return undefined;
}

/**
 * Tells the clicker alone, in the clicked message's thread; nothing when no channel is
 * known. Someone not in the channel (removed from it, or looking at a public channel they
 * never joined) can still click, but Slack refuses them an ephemeral message there
 * (`user_not_in_channel`, https://docs.slack.dev/reference/methods/chat.postEphemeral): the
 * click's own `response_url` (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload)
 * then reaches them, as an ephemeral reply too. Failures are only logged.
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

/**
 * Runs what a click asks of the job service. When the store fails, the click is not
 * applied and the clicker hears so once, in one sentence: Slack never sends a click again
 * (it was acked), and the button stays for when the store is back. Other failures are
 * thrown as they were. Resolves with what `work` gave, or undefined when the store failed.
 */
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
