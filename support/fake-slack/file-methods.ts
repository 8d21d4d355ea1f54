import { randomBytes } from "node:crypto";
import { z } from "zod";
import { idArg, intArg, parseArgs } from "./api-args.ts";
import { checkMessageBlocks } from "./block-limits.ts";
import type { SlackFileObject } from "./fake-slack-types.ts";
import { addShare, botCanSee, buildFileObject } from "./file-object.ts";
import { type ApiMethod, requireChannel, threadRoot } from "./message-helpers.ts";
import { SlackApiError } from "./slack-api-error.ts";
import { shareEvents } from "./slack-events.ts";

/** `files.info`: a registered or uploaded file the app may read (`botCanSee`). */
const info: ApiMethod = (args, store) => {
  const { file } = parseArgs(z.object({ file: idArg }), args);
  const entry = store.files.get(file);
  if (entry === undefined || !botCanSee(store, file)) throw new SlackApiError("file_not_found");
  return { file: structuredClone(entry.file), comments: [] };
};

const getUploadArgs = z.object({
  filename: idArg,
  length: intArg.min(1),
  alt_text: z.string().optional(),
  snippet_type: z.string().optional(),
});

/** `files.getUploadURLExternal`: reserves a file id and an upload URL on this server. */
const getUploadURLExternal: ApiMethod = (args, store) => {
  const a = parseArgs(getUploadArgs, args);
  const file_id = store.newId("F");
  const path = `/upload/v1/${randomBytes(16).toString("base64url")}`;
  store.uploadPaths.set(path, file_id);
  store.uploads.push({
    file_id,
    filename: a.filename,
    title: a.filename,
    length: a.length,
    bytes: 0,
    sha256: "",
    content_type: "",
    completed: false,
  });
  return { upload_url: `${store.workspace.origin}${path}`, file_id };
};

const completeArgs = z.object({
  files: z.array(z.object({ id: idArg, title: z.string().optional() })).min(1),
  channel_id: z.string().optional(),
  channels: z.string().optional(),
  thread_ts: z.string().optional(),
  initial_comment: z.string().optional(),
  blocks: z.unknown().optional(),
});

/**
 * `files.completeUploadExternal`: turns received uploads into files and, given a channel,
 * shares them there with a message carrying `files` (in the thread for `thread_ts`), as
 * Slack does. The answer lists the files without that share: real Slack may make it after
 * answering, so the fake always takes that case.
 */
const completeUploadExternal: ApiMethod = (args, store) => {
  const a = parseArgs(completeArgs, args);
  const channelId = a.channel_id ?? a.channels;
  if (channelId?.includes(",") && a.thread_ts !== undefined) {
    throw new SlackApiError("invalid_arguments", "thread_ts needs a single channel");
  }
  const channel = channelId === undefined ? undefined : requireChannel(store, channelId);
  if (channel !== undefined && !channel.is_member) throw new SlackApiError("not_in_channel");
  if (a.blocks !== undefined) checkMessageBlocks(a.blocks, store.strict.blockKit);

  const uploads = a.files.map(({ id }) => {
    const upload = store.upload(id);
    if (upload === undefined || upload.completed) throw new SlackApiError("file_not_found");
    if (upload.content_type === "") {
      throw new SlackApiError("file_not_found", `nothing was uploaded for ${id}`);
    }
    return upload;
  });
  const { botUserId } = store.workspace;
  const files: SlackFileObject[] = a.files.map(({ id, title }, i) => {
    const upload = uploads[i];
    if (upload === undefined) throw new SlackApiError("file_not_found");
    upload.completed = true;
    upload.title = title ?? upload.filename;
    const file = buildFileObject(store, {
      id,
      name: upload.filename,
      title: upload.title,
      size: upload.bytes,
      user: botUserId,
    });
    store.addFile(file, upload.data === undefined ? undefined : { bytes: upload.data }, false);
    return file;
  });
  const answer = files.map((f) => structuredClone(f));

  if (channel !== undefined) {
    const thread_ts =
      a.thread_ts === undefined ? undefined : threadRoot(store, channel.id, a.thread_ts);
    for (const upload of uploads) {
      upload.channel_id = channel.id;
      if (thread_ts !== undefined) upload.thread_ts = thread_ts;
      if (a.initial_comment !== undefined) upload.initial_comment = a.initial_comment;
    }
    const message = store.addMessage({
      type: "message",
      channel: channel.id,
      ts: store.nextTs(),
      text: a.initial_comment ?? "",
      user: botUserId,
      bot_id: store.workspace.botId,
      app_id: store.workspace.appId,
      upload: true,
      ...(thread_ts !== undefined ? { thread_ts } : {}),
      ...(a.initial_comment === undefined && a.blocks !== undefined
        ? { blocks: a.blocks as unknown[] }
        : {}),
      files,
    });
    // Slack tells the app of its own upload: file_shared (user_id: the bot) and the message.
    const parent = store.parentUser(channel.id, thread_ts);
    for (const event of shareEvents(store.workspace, message, structuredClone(files), parent)) {
      store.onEvent(event);
    }
    for (const file of files) addShare(store, file, channel, message);
  }
  return { files: answer };
};

/**
 * `files.delete`: the bot may delete the files it uploaded (https://docs.slack.dev/reference/
 * methods/files.delete: `file_not_found`, `file_deleted`, `cant_delete_file`). Messages that
 * carried it keep a tombstone, as Slack shows "This file was deleted".
 */
const remove: ApiMethod = (args, store) => {
  const { file } = parseArgs(z.object({ file: idArg }), args);
  const upload = store.uploads.find((u) => u.file_id === file);
  if (upload?.deleted === true) throw new SlackApiError("file_deleted");
  const entry = store.files.get(file);
  if (entry === undefined) throw new SlackApiError("file_not_found");
  if (entry.file.user !== store.workspace.botUserId) throw new SlackApiError("cant_delete_file");
  store.files.delete(file);
  if (upload !== undefined) upload.deleted = true;
  for (const channel of store.channels.keys()) {
    for (const message of store.messages(channel)) {
      for (const shown of message.files ?? []) {
        if (shown.id === file) Object.assign(shown, { mode: "tombstone", name: "", title: "" });
      }
    }
  }
  return {};
};

/** The Web API methods about files. */
export const fileMethods: Record<string, ApiMethod> = {
  "files.info": info,
  "files.delete": remove,
  "files.getUploadURLExternal": getUploadURLExternal,
  "files.completeUploadExternal": completeUploadExternal,
};
