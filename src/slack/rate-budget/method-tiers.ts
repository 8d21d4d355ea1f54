/**
 * Slack's Web API rate limits, as the bot plans around them. Each method has a tier, a
 * number of calls per minute per workspace that Slack allows "with bursts"
 * (https://docs.slack.dev/apis/web-api/rate-limits): Tier 1 1+, Tier 2 20+, Tier 3 50+,
 * Tier 4 100+ a minute. `chat.postMessage` is special: about one message per second per
 * channel, short bursts allowed, and several hundred a minute per workspace. The tier of
 * each method is on its reference page (docs.slack.dev/reference/methods/<method>); the
 * list is also kept by Slack's Java SDK (slackapi/java-slack-sdk,
 * `slack-api-client/src/main/java/com/slack/api/methods/MethodsRateLimits.java`).
 */

/** A budget: calls per minute, and how many may go at once after a quiet while. */
export interface Allowance {
  perMinute: number;
  burst: number;
}

const TIER_1: Allowance = { perMinute: 1, burst: 1 };
const TIER_2: Allowance = { perMinute: 20, burst: 3 };
const TIER_3: Allowance = { perMinute: 50, burst: 5 };
const TIER_4: Allowance = { perMinute: 100, burst: 10 };

/** The methods the bot calls, by tier. */
const TIERS: Readonly<Record<string, Allowance>> = {
  "apps.connections.open": TIER_1,
  "auth.test": TIER_4, // "Special": thousands an hour; Tier 4 is well within it.
  "canvases.create": TIER_2,
  "canvases.edit": TIER_3,
  "canvases.access.set": TIER_3,
  "canvases.delete": TIER_3,
  "chat.delete": TIER_3,
  "chat.getPermalink": TIER_4, // "Special": thousands an hour.
  "chat.postEphemeral": TIER_4,
  "chat.update": TIER_3,
  "conversations.history": TIER_3,
  "conversations.info": TIER_3,
  "conversations.members": TIER_4,
  "conversations.open": TIER_3,
  "conversations.replies": TIER_3,
  "files.completeUploadExternal": TIER_4,
  "files.delete": TIER_3,
  "files.getUploadURLExternal": TIER_4,
  "files.info": TIER_4,
  "files.list": TIER_3,
  // https://docs.slack.dev/reference/methods/functions.completeSuccess (and completeError).
  "functions.completeError": TIER_3,
  "functions.completeSuccess": TIER_3,
  "users.info": TIER_4,
  "views.open": TIER_4,
  "views.publish": TIER_4,
  "views.push": TIER_4,
  "views.update": TIER_4,
};

/** `chat.postMessage` in one channel: about one a second, a short burst allowed. */
export const POST_PER_CHANNEL: Allowance = { perMinute: 60, burst: 3 };
/** `chat.postMessage` in the whole workspace: "several hundred messages per minute". */
export const POST_PER_WORKSPACE: Allowance = { perMinute: 300, burst: 20 };

/** The allowance of a method; an unknown one is taken as Tier 2, the cautious guess. */
export function allowanceOf(method: string): Allowance {
  if (method === "chat.postMessage") return POST_PER_WORKSPACE;
  return TIERS[method] ?? TIER_2;
}
