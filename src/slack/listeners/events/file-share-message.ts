import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { slackFileSchema } from "../../recording-file.ts";
import type { ListenerDeps } from "../deps.ts";
import { startRecordings } from "./start-recordings.ts";

const fileShareSchema = z.looseObject({
  /** `file_share`; absent in Slack's own published example of the event (its files say it). */
  subtype: z.literal("file_share").optional(),
  /**
   * `im` for a direct message with the bot (message.im events,
   * https://docs.slack.dev/reference/events/message.im): the thread to answer in is there.
   */
  channel_type: z.string().optional(),
  channel: z.string().min(1),
  user: z.string().min(1),
  ts: z.string().min(1),
  thread_ts: z.string().optional(),
  text: z.string().optional(),
  // A person's upload carries "bot_id": null in Slack's own example of this event.
  bot_id: z.string().nullish(),
  files: z.array(slackFileSchema).min(1),
});

/**
 * A `message` event of subtype `file_share`: someone posted files with a message (in a
 * channel, or straight to the bot in a direct message, where every file gets an answer).
 */
export function fileShareMessage(deps: ListenerDeps) {
  return async ({ event }: SlackEventMiddlewareArgs<"message"> & AllMiddlewareArgs) => {
    const { subtype } = event as { subtype?: string };
    if (subtype !== undefined && subtype !== "file_share") return;
    const parsed = fileShareSchema.safeParse(event);
    if (!parsed.success || typeof parsed.data.bot_id === "string") return;
    const message = parsed.data;
    await startRecordings(deps, {
      channelId: message.channel,
      userId: message.user,
      threadTs: message.thread_ts ?? message.ts,
      text: message.text,
      files: message.files,
      direct: message.channel_type === "im",
    });
  };
}
