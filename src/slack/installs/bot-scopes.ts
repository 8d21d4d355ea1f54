/**
 * The manifests' `oauth_config.scopes.bot` (a test keeps them equal), copied here because the
 * app runs from `src/` alone.
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
