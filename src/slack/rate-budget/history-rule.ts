import type { SlackDistribution } from "../../config-schema.ts";
import type { Allowance } from "./method-tiers.ts";

/**
 * Slack's rule of May 2025 for apps distributed outside the Marketplace: "The rate limits
 * for both the conversations.history and conversations.replies API methods are changing
 * from Tier 3 to Tier 1 for apps that are not approved for the Slack Marketplace … limited
 * to 1 request per minute … The maximum and default for the limit parameter has been
 * reduced to 15 objects" (https://docs.slack.dev/changelog/2025/05/29/rate-limit-changes-
 * for-non-marketplace-apps; the methods' pages say the same, and that "Marketplace and
 * internal customer-built applications" keep Tier 3). Which rule applies is the deployment's
 * SLACK_APP_DISTRIBUTION.
 *
 * Under it a minute holds one read of each method per workspace, shared by everything the
 * bot does there: nothing a person waits for may depend on one (uploads carry their text,
 * a mention's thread is found in what the bot stored); the reads that remain (recovery,
 * the modal's recent recordings, a mention of a recording the bot never saw) take the
 * minute's read when it is free — a person's never waits for it, the runner's does — and
 * ask for at most 15 objects.
 */

/** The methods the rule covers. */
export const HISTORY_METHODS: ReadonlySet<string> = new Set([
  "conversations.history",
  "conversations.replies",
]);

/** What a distributed app may ask of either method per call, at most. */
export const DISTRIBUTED_PAGE = 15;

/** One read a minute, no burst: Slack's "1 request per minute". */
const DISTRIBUTED_ALLOWANCE: Allowance = { perMinute: 1, burst: 1 };

/**
 * The allowance of a history method under the rule, or undefined when the method's tier
 * applies (another method, or an internal or Marketplace app).
 */
export function historyAllowance(
  method: string,
  distribution: SlackDistribution,
): Allowance | undefined {
  return distribution === "distributed" && HISTORY_METHODS.has(method)
    ? DISTRIBUTED_ALLOWANCE
    : undefined;
}

/**
 * The request with its `limit` at most {@link DISTRIBUTED_PAGE} (and set to it when absent),
 * for a history method of a distributed app; any other request as it is. Every Slack call
 * passes the budget, so the page asked for is decided here once, whoever reads.
 */
export function withPageLimit(
  method: string,
  distribution: SlackDistribution,
  init: RequestInit,
): RequestInit {
  if (historyAllowance(method, distribution) === undefined) return init;
  const { body } = init;
  const form =
    typeof body === "string"
      ? new URLSearchParams(body)
      : body instanceof URLSearchParams
        ? new URLSearchParams(body)
        : undefined;
  if (form === undefined) return init;
  const asked = Number(form.get("limit") ?? Number.NaN);
  const limit =
    Number.isInteger(asked) && asked > 0 ? Math.min(asked, DISTRIBUTED_PAGE) : DISTRIBUTED_PAGE;
  form.set("limit", String(limit));
  return { ...init, body: typeof body === "string" ? form.toString() : form };
}
