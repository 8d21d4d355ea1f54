// Slack's tiers per method and workspace (https://docs.slack.dev/apis/web-api/rate-limits);
// each method's is on its reference page.

/** Calls per minute, and how many may go at once after a quiet while. */
export interface Allowance {
  perMinute: number;
  burst: number;
}

const TIER_1: Allowance = { perMinute: 1, burst: 1 };
const TIER_2: Allowance = { perMinute: 20, burst: 3 };
const TIER_3: Allowance = { perMinute: 50, burst: 5 };
const TIER_4: Allowance = { perMinute: 100, burst: 10 };

const TIERS: Readonly<Record<string, Allowance>> = {
  "apps.connections.open": TIER_1,
  "auth.test": TIER_4, // "Special": thousands an hour.
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

/** An unknown method is taken as Tier 2, the cautious guess. */
export function allowanceOf(method: string): Allowance {
  if (method === "chat.postMessage") return POST_PER_WORKSPACE;
  return TIERS[method] ?? TIER_2;
}
