import { createHash, randomInt } from "node:crypto";
import { SlackApiError } from "./slack-api-error.ts";

/**
 * How long a `trigger_id` can be exchanged: "Pass a valid trigger_id within 3 seconds of
 * receiving it" (https://docs.slack.dev/tools/bolt-python/concepts/opening-modals), "trigger_id
 * … expires in 3 seconds" (https://docs.slack.dev/surfaces/modals).
 */
export const TRIGGER_TTL_MS = 3_000;

/** Salt of the check digits: any fixed text, so every process mints and reads alike. */
const SALT = "meeting-notes fake Slack trigger";

/**
 * A `trigger_id` in Slack's shape (`<digits>.<digits>.<hex>`, as the views.open docs show
 * `12345.98765.abcd2358fdea`) that carries its own issue time: the first part is the issue
 * time in milliseconds, the last a hash of the first two. The fake may run in another
 * process than the test that minted it; it reads the time back and knows the id was issued.
 */
export function mintTriggerId(issuedAtMs: number = Date.now()): string {
  const head = `${Math.floor(issuedAtMs)}.${randomInt(1, 2 ** 31)}`;
  return `${head}.${checkHex(head)}`;
}

/** When a trigger minted by {@link mintTriggerId} was issued; undefined for any other id. */
export function triggerIssuedAt(triggerId: string): number | undefined {
  const match = /^(\d{1,16})\.(\d{1,12})\.([0-9a-f]{32})$/.exec(triggerId);
  if (match === null) return undefined;
  const head = `${match[1]}.${match[2]}`;
  return match[3] === checkHex(head) ? Number(match[1]) : undefined;
}

/**
 * Refuses a trigger as `views.open` / `views.push` do (their error tables on
 * https://docs.slack.dev/reference/methods/views.open and …/views.push):
 * - `invalid_trigger_id`: "The trigger_id is invalid" — here, one no payload builder minted;
 * - `expired_trigger_id`: "The trigger_id is expired" — older than 3 s at `nowMs`;
 * - `exchanged_trigger_id`: "The trigger_id was already exchanged in a previous call".
 * Marks the trigger exchanged when it passes.
 */
export function exchangeTrigger(triggerId: string, nowMs: number, exchanged: Set<string>): void {
  const issued = triggerIssuedAt(triggerId);
  if (issued === undefined) throw new SlackApiError("invalid_trigger_id");
  if (nowMs - issued > TRIGGER_TTL_MS) {
    throw new SlackApiError("expired_trigger_id", `issued ${nowMs - issued} ms ago`);
  }
  if (exchanged.has(triggerId)) throw new SlackApiError("exchanged_trigger_id");
  exchanged.add(triggerId);
}

function checkHex(head: string): string {
  return createHash("sha256").update(`${SALT}:${head}`).digest("hex").slice(0, 32);
}
