/**
 * A direct message's conversation id: Slack's Web API spec defines it as `^[D][A-Z0-9]{8}$`
 * ("Direct Message Channel ID", `defs_dm_id` in slackapi/slack-api-specs,
 * web-api/slack_web_openapi_v2.json); longer ids of the same form are taken too, as
 * Slack's ids have grown before.
 */
const DM_CHANNEL_ID = /^D[A-Z0-9]{8,}$/;

/** Whether a conversation id is a direct message's (the bot's DM with one person). */
export function isDirectMessage(channelId: string): boolean {
  return DM_CHANNEL_ID.test(channelId);
}
