/**
 * What the app did that Slack does not refuse outright but tells it not to do; the fake
 * keeps a record so a test can assert there was none.
 * - `retry_after`: a Web API call inside a Retry-After window the fake announced for it
 *   (https://docs.slack.dev/apis/web-api/rate-limits: "wait the number of seconds in the
 *   Retry-After header before retrying");
 * - `view_errors`: a `response_action: "errors"` answer naming a block that is not an input
 *   block of the submitted view (see view-answers.ts).
 */
export interface FakeViolation {
  rule: "retry_after" | "view_errors";
  /** The Web API method, or the payload type for answers (`view_submission`). */
  method: string;
  detail: string;
  at: number;
}

/** What Slack delivers to the app: the Events API, slash commands, interactions. */
export type DeliveryKind = "events_api" | "slash_commands" | "interactive";

/**
 * A fake's view of deliveries the tests send the app over HTTP: `before` may throw when the
 * installed app could not receive it; `after` checks the app's answer.
 */
export interface DeliveryWatcher {
  teamId: string;
  before(kind: DeliveryKind, payload: Record<string, unknown>): void;
  after(kind: DeliveryKind, payload: Record<string, unknown>, answer: unknown): void;
}

const watchers = new Set<DeliveryWatcher>();

/**
 * Registers a fake as watcher of deliveries to its workspace (every fake of this process
 * does, to check them against its install and the views it opened); returns the unregister.
 */
export function watchDeliveries(watcher: DeliveryWatcher): () => void {
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}

/** Tells the fakes of workspace `teamId` that the test is about to deliver `payload`. */
export function beforeDelivery(
  kind: DeliveryKind,
  teamId: unknown,
  payload: Record<string, unknown>,
): void {
  for (const w of watchers) if (w.teamId === teamId) w.before(kind, payload);
}

/** Tells the fakes of workspace `teamId` what the app answered to `payload`. */
export function afterDelivery(
  kind: DeliveryKind,
  teamId: unknown,
  payload: Record<string, unknown>,
  answer: unknown,
): void {
  for (const w of watchers) if (w.teamId === teamId) w.after(kind, payload, answer);
}
