/**
 * Methods a second call of which changes nothing the first did not, or leaves nothing anyone
 * sees: only these are re-sent after a lost answer. For the rest the caller looks first.
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

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method);
}
