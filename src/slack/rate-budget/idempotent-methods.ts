/**
 * The Web API methods the bot calls that may be sent again when Slack's answer is lost: a
 * second call changes nothing the first did not (a read, an edit that replaces, a delete,
 * a grant), or leaves nothing anyone sees (`files.getUploadURLExternal` only reserves an
 * upload; `apps.connections.open` only hands out a socket URL).
 *
 * Every other method is not sent again by the client: `chat.postMessage`,
 * `chat.postEphemeral`, `files.completeUploadExternal` (it shares the files),
 * `canvases.create`, `views.open` and `views.push` (their trigger is good once), and any
 * method not listed here. After a failure of one of those whose outcome is unknown, the
 * caller looks for what it may have left (the thread, the bot's files) before calling again.
 * The upload of a file's bytes to its upload URL is no Web API method and is not sent again
 * either.
 */
const IDEMPOTENT = new Set([
  "apps.connections.open",
  "auth.test",
  "canvases.access.set",
  "canvases.delete",
  // The bot's only edit is one `replace` of the whole document (canvas-gateway.ts).
  "canvases.edit",
  "chat.delete",
  "chat.getPermalink",
  "chat.update",
  "conversations.history",
  "conversations.info",
  "conversations.members",
  // Opens or resumes the one direct message with a person: the same id every time.
  "conversations.open",
  "conversations.replies",
  "files.delete",
  "files.getUploadURLExternal",
  "files.info",
  "files.list",
  "users.info",
  "views.publish",
  "views.update",
]);

/** Whether a call of `method` whose answer was lost may be sent again as it is. */
export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method);
}
