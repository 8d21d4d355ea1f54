import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import {
  classifyFile,
  type SlackFile,
  shownNameOf,
  slackFileSchema,
} from "../../directory/recording-file.ts";
import { requestTenant } from "../../installs/request-tenant.ts";
import type { ListenerDeps } from "../deps.ts";
import { mayBeRecordings } from "../message-recordings.ts";
import { startRecordings } from "./start-recordings.ts";

const fileShareSchema = z.looseObject({
  /** Absent in Slack's own published example of the event. */
  subtype: z.literal("file_share").optional(),
  /** `im`: a DM with the bot (https://docs.slack.dev/reference/events/message.im). */
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

type FileShare = z.infer<typeof fileShareSchema>;

/**
 * An upload's one way in: unlike `file_shared` it carries the files and the text typed with them.
 * It is kept as seen, so a mention in its thread and the modal's recent recordings need no read.
 */
export function fileShareMessage(deps: ListenerDeps) {
  return async ({ event }: SlackEventMiddlewareArgs<"message"> & AllMiddlewareArgs) => {
    const { subtype } = event as { subtype?: string };
    if (subtype !== undefined && subtype !== "file_share") return;
    const parsed = fileShareSchema.safeParse(event);
    if (!parsed.success || typeof parsed.data.bot_id === "string") return;
    const message = parsed.data;
    // Side by side, so a slow store never delays the job's own path.
    await Promise.all([
      noteUpload(deps, message),
      startRecordings(deps, {
        channelId: message.channel,
        userId: message.user,
        threadTs: message.thread_ts ?? message.ts,
        text: message.text,
        files: message.files,
        direct: message.channel_type === "im",
      }),
    ]);
  };
}

/** Only a message of its own, not a reply; a store that fails costs a later mention a read. */
async function noteUpload(deps: ListenerDeps, message: FileShare): Promise<void> {
  if (message.thread_ts !== undefined && message.thread_ts !== message.ts) return;
  const files = mayBeRecordings(message.files, deps.jobs.canPrepare).map((file) =>
    seenFile(file, deps.jobs.canPrepare),
  );
  if (files.length === 0) return;
  try {
    await deps.uploads.saw(requestTenant(), message.channel, {
      ts: message.ts,
      userId: message.user,
      ...(message.text === undefined ? {} : { text: message.text }),
      files: files.slice(0, 10),
    });
  } catch (error) {
    deps.logger.warn({ err: error, channel: message.channel }, "could not keep an upload as seen");
  }
}

function seenFile(file: SlackFile, canPrepare: boolean) {
  const kind = classifyFile(file, canPrepare);
  const name = kind.kind === "recording" ? kind.source.filename : shownNameOf(file);
  return {
    id: file.id,
    ...(name === undefined ? {} : { name }),
    ...(kind.kind === "recording" ? { recording: true } : {}),
  };
}
