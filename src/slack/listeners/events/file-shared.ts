import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { isDirectMessage } from "../../text/index.ts";
import type { ListenerDeps } from "../deps.ts";
import { startRecordings } from "./start-recordings.ts";

const fileSharedSchema = z.looseObject({
  file_id: z.string().min(1),
  user_id: z.string().min(1),
  channel_id: z.string().min(1),
  event_ts: z.string().optional(),
});

const sharesSchema = z.looseObject({
  shares: z
    .looseObject({
      public: z
        .record(
          z.string(),
          z.array(z.looseObject({ ts: z.string(), thread_ts: z.string().optional() })),
        )
        .optional(),
      private: z
        .record(
          z.string(),
          z.array(z.looseObject({ ts: z.string(), thread_ts: z.string().optional() })),
        )
        .optional(),
    })
    .optional(),
});

/**
 * `file_shared` carries ids only (and may arrive before or instead of the `file_share`
 * message): look the file up, find the message it was shared in — in a channel or in a
 * direct message with the bot — to answer in its thread, and read that message's text for
 * the context. Dedupe by file makes the pair one job.
 */
export function fileShared(deps: ListenerDeps) {
  return async ({ event }: SlackEventMiddlewareArgs<"file_shared"> & AllMiddlewareArgs) => {
    const parsed = fileSharedSchema.safeParse(event);
    if (!parsed.success) return;
    const { file_id: fileId, user_id: userId, channel_id: channelId } = parsed.data;
    // `file_shared` names the sharer in `user_id`, which Bolt's ignoreSelf does not read:
    // the bot's own uploads (the DOCX it posts) come back here.
    if (userId === (await deps.directory.botUserId())) return;
    const file = await deps.directory.file(fileId);
    if (file === undefined) return;
    const shares = sharesSchema.safeParse(file);
    const share =
      shares.data?.shares?.public?.[channelId]?.[0] ??
      shares.data?.shares?.private?.[channelId]?.[0];
    if (share === undefined) return; // not (yet) visible as shared in this channel
    const text = (await deps.directory.message(channelId, share.ts))?.text;
    await startRecordings(deps, {
      channelId,
      userId,
      threadTs: share.thread_ts ?? share.ts,
      text,
      files: [file],
      // `file_shared` has no `channel_type`: a direct message is told by its id, as in
      // the `file_share` message's `channel_type: "im"`. There every file gets an answer.
      direct: isDirectMessage(channelId),
    });
  };
}
