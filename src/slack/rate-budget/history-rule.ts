import type { SlackDistribution } from "../../config-schema.ts";
import type { Allowance } from "./method-tiers.ts";

// A distributed non-Marketplace app gets history at 1 request a minute and 15 objects
// (https://docs.slack.dev/changelog/2025/05/29/rate-limit-changes-for-non-marketplace-apps),
// so nothing a person waits for reads history. SLACK_APP_DISTRIBUTION says whether it applies.

export const HISTORY_METHODS: ReadonlySet<string> = new Set([
  "conversations.history",
  "conversations.replies",
]);

export const DISTRIBUTED_PAGE = 15;

const DISTRIBUTED_ALLOWANCE: Allowance = { perMinute: 1, burst: 1 };

/** Undefined when the method's tier applies. */
export function historyAllowance(
  method: string,
  distribution: SlackDistribution,
): Allowance | undefined {
  return distribution === "distributed" && HISTORY_METHODS.has(method)
    ? DISTRIBUTED_ALLOWANCE
    : undefined;
}

/** A rationed request's `limit`, capped at {@link DISTRIBUTED_PAGE} here once, whoever reads. */
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
