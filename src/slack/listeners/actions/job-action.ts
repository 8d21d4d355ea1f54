import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import type { Locale } from "../../messages/index.ts";
import { localeOf } from "../../messages/index.ts";
import type { ListenerDeps } from "../deps.ts";

export type ButtonArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

const buttonSchema = z.object({
  actions: z.array(z.looseObject({ value: z.string().min(1).max(100) })).min(1),
  user: z.looseObject({ id: z.string().min(1) }),
  trigger_id: z.string().optional(),
  channel: z.looseObject({ id: z.string() }).optional(),
  message: z.looseObject({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
});

export interface ButtonClick {
  jobId: string;
  userId: string;
  triggerId: string | undefined;
  channelId: string | undefined;
  threadTs: string | undefined;
  locale: Locale;
}

/**
 * Acks a status-message button at once and reads what every job button carries: the job
 * id in `value`, who clicked, where. Undefined for a payload that is not one of ours.
 */
export async function readButton(
  deps: ListenerDeps,
  args: ButtonArgs,
): Promise<ButtonClick | undefined> {
  await args.ack();
  const parsed = buttonSchema.safeParse(args.body);
  if (!parsed.success) {
    deps.logger.warn({ issues: parsed.error.issues.slice(0, 2) }, "unreadable button payload");
    return undefined;
  }
  const { actions, user, trigger_id, channel, message } = parsed.data;
  const jobId = actions[0]?.value ?? "";
  return {
    jobId,
    userId: user.id,
    triggerId: trigger_id,
    channelId: channel?.id,
    threadTs: message?.thread_ts ?? message?.ts,
    locale: localeOf((await deps.directory.user(user.id)).locale),
  };
}
