import { z } from "zod";
import { boolArg, intArg, parseArgs } from "./api-args.ts";
import { compareTs, type FakeSlackStore } from "./fake-slack-store.ts";
import { type ApiMethod, messageOut, page, requireChannel } from "./message-helpers.ts";
import { SlackApiError } from "./slack-api-error.ts";

/**
 * Reading messages back: `conversations.replies` and `conversations.history`.
 *
 * A distributed app outside the Marketplace (the fake's `distributedApp` option) reads
 * them under Slack's rule of May 2025: "The rate limits for both the conversations.history
 * and conversations.replies API methods are changing from Tier 3 to Tier 1 for apps that
 * are not approved for the Slack Marketplace … limited to 1 request per minute … The
 * maximum and default for the limit parameter has been reduced to 15 objects"
 * (https://docs.slack.dev/changelog/2025/05/29/rate-limit-changes-for-non-marketplace-apps).
 * Each method's page says it too: "As of May 29, 2025, for new applications and
 * installation commercially distributed outside of the Marketplace, this method is rate
 * limited to 1 request per minute. The maximum and default values for the limit parameter
 * have both been reduced to 15 objects. For Marketplace and internal customer-built
 * applications, this method has Tier 3 rate limits." (https://docs.slack.dev/reference/
 * methods/conversations.history, …/conversations.replies; existing installs too "beginning
 * March 3, 2026"); and https://docs.slack.dev/apis/web-api/rate-limits: "Apps already
 * approved for the Slack Marketplace and internal customer-built applications should not
 * see rate limit changes." The minute is rate-tiers.ts's; the 15 objects are here.
 *
 * A `limit` above 15 is not refused: Slack documents no error for it, `limit` is "The
 * maximum number of items to return. Fewer than the requested number of items may be
 * returned" (the methods' arguments), and "It's possible to receive fewer results than
 * your specified limit, even when there are additional results to retrieve"
 * (https://docs.slack.dev/apis/web-api/pagination). So it is answered with 15, `has_more`
 * and a cursor, as a capped page.
 */

/** What a distributed non-Marketplace app gets per call of either method, at most and by default. */
export const DISTRIBUTED_PAGE = 15;

const listArgs = z.object({
  cursor: z.string().optional(),
  limit: intArg.optional(),
  include_all_metadata: boolArg.optional(),
  latest: z.string().optional(),
  oldest: z.string().optional(),
  inclusive: boolArg.optional(),
});

/** The page size a call gets: Slack's default, or what it asked, within the app's rule. */
function pageSize(store: FakeSlackStore, asked: number | undefined, fallback: number): number {
  if (!store.distributedApp) return asked ?? fallback;
  return Math.min(asked ?? DISTRIBUTED_PAGE, DISTRIBUTED_PAGE);
}

/**
 * `conversations.replies`: the parent then its replies, oldest first, paginated with
 * `cursor`/`limit` (Slack's default page is 1,000); `metadata` only with
 * `include_all_metadata=true`.
 */
const replies: ApiMethod = (args, store) => {
  const channel = requireChannel(store, args.channel);
  if (typeof args.ts !== "string" || args.ts === "") throw new SlackApiError("invalid_arguments");
  const a = parseArgs(listArgs, args);
  // Asked for a reply's ts, Slack still answers with the whole thread it belongs to.
  const root = store.message(channel.id, args.ts)?.thread_ts ?? args.ts;
  const thread = store
    .thread(channel.id, root)
    .filter((m) => inRange(m.ts, a.oldest, a.latest, a.inclusive ?? false));
  if (thread.length === 0) throw new SlackApiError("thread_not_found");
  const p = page(thread, a.cursor, pageSize(store, a.limit, 1000));
  return {
    messages: p.items.map((m) => messageOut(store, m, a.include_all_metadata === true)),
    has_more: p.has_more,
    ...(p.response_metadata !== undefined ? { response_metadata: p.response_metadata } : {}),
  };
};

/** `conversations.history`: top-level messages (and broadcasts), newest first. */
const history: ApiMethod = (args, store) => {
  const channel = requireChannel(store, args.channel);
  const a = parseArgs(listArgs, args);
  const top = store
    .messages(channel.id)
    .filter(
      (m) => m.thread_ts === undefined || m.thread_ts === m.ts || m.subtype === "thread_broadcast",
    )
    .filter((m) => inRange(m.ts, a.oldest, a.latest, a.inclusive ?? false))
    .reverse();
  const p = page(top, a.cursor, pageSize(store, a.limit, 100));
  return {
    messages: p.items.map((m) => messageOut(store, m, a.include_all_metadata === true)),
    has_more: p.has_more,
    pin_count: 0,
    ...(p.response_metadata !== undefined ? { response_metadata: p.response_metadata } : {}),
  };
};

/** The Web API methods that read a conversation's messages. */
export const historyMethods: Record<string, ApiMethod> = {
  "conversations.replies": replies,
  "conversations.history": history,
};

function inRange(
  ts: string,
  oldest: string | undefined,
  latest: string | undefined,
  inclusive: boolean,
): boolean {
  if (oldest !== undefined) {
    const c = compareTs(ts, oldest);
    if (c < 0 || (c === 0 && !inclusive)) return false;
  }
  if (latest !== undefined) {
    const c = compareTs(ts, latest);
    if (c > 0 || (c === 0 && !inclusive)) return false;
  }
  return true;
}
