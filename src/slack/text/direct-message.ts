/**
 * Slack's spec says `^D[A-Z0-9]{8}$` (`defs_dm_id`, slackapi/slack-api-specs); longer ids are
 * taken, as ids have grown before.
 */
const DM_CHANNEL_ID = /^D[A-Z0-9]{8,}$/;

export function isDirectMessage(channelId: string): boolean {
  return DM_CHANNEL_ID.test(channelId);
}
