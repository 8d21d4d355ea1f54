/**
 * Slack's Web API rate limits, "evaluated per method, per workspace" in windows "per
 * minute" (https://docs.slack.dev/apis/web-api/rate-limits):
 *
 * | Tier    | Limit           | Burst, as the page puts it                               |
 * |---------|-----------------|----------------------------------------------------------|
 * | Tier 1  | 1+ per minute   | "A small amount of burst behavior is tolerated."         |
 * | Tier 2  | 20+ per minute  | "occasional bursts of more requests"                     |
 * | Tier 3  | 50+ per minute  | "Sporadic bursts are welcome."                           |
 * | Tier 4  | 100+ per minute | "generous burst behavior"                                |
 * | Special | varies          | chat.postMessage: "one message per second per channel",  |
 * |         |                 | "short bursts >1 allowed", and a workspace-wide limit    |
 *
 * The fake holds the floor of each tier ("N+" is at least N; the same numbers as the
 * official Java SDK's rate limiter, slackapi/java-slack-sdk slack-api-client/src/main/java/
 * com/slack/api/methods/MethodsRateLimitTier.java `allowedRequestsPerMinute`) as a token
 * bucket per (workspace, method), refilled at N per minute. Its capacity is the burst, which
 * the page gives in words only; the fake's reading: a minute's budget at once (the window
 * is a minute; chat.postMessage's "generous burst behavior" too, per channel), and one more
 * call for Tier 1's "small amount". Past that, HTTP 429 `ratelimited` with `Retry-After`
 * (seconds). A test wanting the tighter pacing the Java SDK keeps to (6 posts in 3 s,
 * WaitTimeCalculator.isBurst) lowers the budgets with the `rateScale` knob.
 */

/** A budget: `perMinute` refill, up to `burst` calls at once. */
export interface Budget {
  perMinute: number;
  burst: number;
}

export type TierName = "tier1" | "tier2" | "tier3" | "tier4" | "hundreds";

export const TIER_BUDGETS: Readonly<Record<TierName, Budget>> = {
  tier1: { perMinute: 1, burst: 2 },
  tier2: { perMinute: 20, burst: 20 },
  tier3: { perMinute: 50, burst: 50 },
  tier4: { perMinute: 100, burst: 100 },
  // auth.test and chat.getPermalink: "This method allows hundreds of requests per minute"
  // (MethodsRateLimitTier.java, SpecialTier_auth_test / SpecialTier_chat_getPermalink: 600).
  hundreds: { perMinute: 600, burst: 600 },
};

/**
 * chat.postMessage's special tier: "It will generally allow an app to post 1 message per
 * second to a specific channel. There are limits governing your app's relationship with the
 * entire workspace above that, limiting posting to several hundred messages per minute.
 * Generous burst behavior is also granted." (MethodsRateLimitTier.java,
 * SpecialTier_chat_postMessage: 60 a minute per channel). Several hundred: 300.
 */
export const POST_MESSAGE_BUDGETS = {
  perChannel: { perMinute: 60, burst: 60 },
  perWorkspace: { perMinute: 300, burst: 300 },
} as const satisfies Record<string, Budget>;

/**
 * The tier of each method the fake implements, from the "Rate limits" fact of its page,
 * https://docs.slack.dev/reference/methods/<method>, as slackapi/java-slack-sdk lists them
 * (slack-api-client/src/main/java/com/slack/api/methods/MethodsRateLimits.java).
 * chat.postMessage is special: see {@link POST_MESSAGE_BUDGETS}.
 */
export const METHOD_TIERS: Readonly<Record<string, TierName | "postMessage">> = {
  "apps.connections.open": "tier1",
  "auth.test": "hundreds",
  "canvases.create": "tier2",
  "canvases.edit": "tier3",
  "canvases.access.set": "tier3",
  "canvases.delete": "tier3",
  "chat.getPermalink": "hundreds",
  "chat.postEphemeral": "tier4",
  "chat.postMessage": "postMessage",
  "chat.update": "tier3",
  "conversations.history": "tier3",
  "conversations.info": "tier3",
  "conversations.members": "tier4",
  "conversations.open": "tier3",
  "conversations.replies": "tier3",
  "files.completeUploadExternal": "tier4",
  "files.delete": "tier3",
  "files.getUploadURLExternal": "tier4",
  "files.info": "tier4",
  "files.list": "tier3",
  "functions.completeError": "tier3",
  "functions.completeSuccess": "tier3",
  "reactions.add": "tier3",
  "users.info": "tier4",
  "views.open": "tier4",
  "views.publish": "tier4",
  "views.push": "tier4",
  "views.update": "tier4",
};

/**
 * `conversations.history` and `conversations.replies` of a distributed app outside the
 * Marketplace: "limited to 1 request per minute" (and Tier 3 for Marketplace and internal,
 * customer-built apps), https://docs.slack.dev/changelog/2025/05/29/rate-limit-changes-for-
 * non-marketplace-apps and each method's page; history-methods.ts quotes them and caps
 * their pages at 15 objects. A flat "1 request", not Tier 1's "1+": no burst beyond it.
 */
export const DISTRIBUTED_HISTORY_BUDGET: Budget = { perMinute: 1, burst: 1 };

/** The methods that rule slows for a distributed non-Marketplace app. */
export const DISTRIBUTED_HISTORY_METHODS: ReadonlySet<string> = new Set([
  "conversations.history",
  "conversations.replies",
]);

/** One bucket a call draws from. */
export interface RateKey {
  key: string;
  budget: Budget;
}

/**
 * The buckets of a call: its (workspace, method), and for chat.postMessage its channel.
 * `distributedApp`: the app is distributed outside the Marketplace (history's own budget).
 */
export function rateKeys(
  teamId: string,
  method: string,
  args: Record<string, unknown>,
  distributedApp = false,
): RateKey[] {
  if (distributedApp && DISTRIBUTED_HISTORY_METHODS.has(method)) {
    return [{ key: `${teamId}/${method}`, budget: DISTRIBUTED_HISTORY_BUDGET }];
  }
  const tier = METHOD_TIERS[method];
  if (tier === undefined) return [];
  if (tier !== "postMessage") return [{ key: `${teamId}/${method}`, budget: TIER_BUDGETS[tier] }];
  const keys: RateKey[] = [
    { key: `${teamId}/${method}`, budget: POST_MESSAGE_BUDGETS.perWorkspace },
  ];
  if (typeof args.channel === "string") {
    keys.push({
      key: `${teamId}/${method}/${args.channel}`,
      budget: POST_MESSAGE_BUDGETS.perChannel,
    });
  }
  return keys;
}

/** The method part of a rate key. */
export function methodOfKey(key: string): string {
  return key.split("/")[1] ?? key;
}

/**
 * Token buckets and the Retry-After windows the fake announced. `scale` multiplies every
 * budget (a test may raise or lower the tiers); `now` is the fake's clock.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  /** Per key: from when the caller could know of its wait (the 429 written) until it ends. */
  readonly #windows = new Map<string, { from: number; until: number }>();

  /**
   * Takes one call from every bucket of `keys`, or none when one is empty: then the key
   * that refused and the seconds until it has a call again (at least 1).
   */
  take(
    keys: RateKey[],
    now: number,
    scale: number,
  ): { key: string; retryAfter: number } | undefined {
    if (scale === Number.POSITIVE_INFINITY) return undefined;
    if (!(scale > 0)) throw new Error(`fake Slack: rateScale must be above 0, not ${scale}`);
    const states = keys.map(({ key, budget }) => {
      const capacity = Math.max(1, budget.burst * scale);
      const perMs = (budget.perMinute * scale) / 60_000;
      const held = this.#buckets.get(key) ?? { tokens: capacity, at: now };
      const tokens = Math.min(capacity, held.tokens + Math.max(0, now - held.at) * perMs);
      return { key, tokens, perMs };
    });
    const empty = states.find((s) => s.tokens < 1);
    if (empty !== undefined) {
      const waitMs = (1 - empty.tokens) / empty.perMs;
      return { key: empty.key, retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) };
    }
    for (const s of states) this.#buckets.set(s.key, { tokens: s.tokens - 1, at: now });
    return undefined;
  }

  /**
   * Remembers that the fake told the caller to wait `seconds` before calling `key` again,
   * in a 429 it wrote at `writtenAt`: a call already on its way then is not inside it.
   */
  announce(key: string, writtenAt: number, seconds: number): void {
    const until = writtenAt + seconds * 1000;
    const held = this.#windows.get(key);
    if (held !== undefined && held.until >= writtenAt) {
      this.#windows.set(key, { from: held.from, until: Math.max(held.until, until) });
    } else this.#windows.set(key, { from: writtenAt, until });
  }

  /** The announced windows a call of `keys` that arrived at `at` fell in: key and ms left. */
  inWindow(keys: string[], at: number): { key: string; leftMs: number }[] {
    return keys.flatMap((key) => {
      const window = this.#windows.get(key);
      if (window === undefined || at < window.from || at >= window.until) return [];
      return [{ key, leftMs: window.until - at }];
    });
  }

  reset(): void {
    this.#buckets.clear();
    this.#windows.clear();
  }
}
