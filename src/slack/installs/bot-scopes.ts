/**
 * The bot scopes an install by OAuth asks for: the manifests' `oauth_config.scopes.bot`
 * (test/manifests.test.ts keeps them equal). Kept here, not read from manifests/, because the
 * app runs from `src/` alone (the Docker image copies nothing else).
 */
export const BOT_SCOPES: readonly string[] = [
  "channels:history",
  "groups:history",
  "chat:write",
  "commands",
  "files:read",
  "files:write",
  "users:read",
  "channels:read",
  "groups:read",
  "im:history",
  "im:write",
  "canvases:write",
];
