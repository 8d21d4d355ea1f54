import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { slackFileSchema } from "../../recording-file.ts";
import type { ListenerDeps } from "../deps.ts";
import { startRecordings } from "./start-recordings.ts";

const fileShareSchema = z.looseObject({
  subtype: z.literal("file_share"),
  channel: z.string().min(1),
  user: z.string().min(1),
  ts: z.string().min(1),
  thread_ts: z.string().optional(),
  text: z.string().optional(),
  // A person's upload carries "bot_id": null in Slack's own example of this event.
  bot_id: z.string().nullish(),
  files: z.array(slackFileSchema).min(1),
});

/** A `message` event of subtype `file_share`: someone posted files with a message. */
export function fileShareMessage(deps: ListenerDeps) {
  return async ({
    event,
    body,
    client,
  }: SlackEventMiddlewareArgs<"message"> & AllMiddlewareArgs) => {
    if ((event as { subtype?: string }).subtype !== "file_share") return;
    const parsed = fileShareSchema.safeParse(event);
    if (!parsed.success || typeof parsed.data.bot_id === "string") return;
    const message = parsed.data;
    await startRecordings(deps, client, {
      teamId: (body as { team_id?: string }).team_id ?? "",
      channelId: message.channel,
      userId: message.user,
      threadTs: message.thread_ts ?? message.ts,
      text: message.text,
      files: message.files,
    });
  };
}
