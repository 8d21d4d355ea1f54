/**
 * What a capability is: each lets whoever holds it act as the app, or as the person who
 * handed it over, for a while — none may ever reach a log line.
 * - `token`, `refresh_token`: the bot's and users' tokens, rotation's refresh tokens;
 * - `step_token`: a Workflow step's `bot_access_token` (`xwfp-…`), valid while the step runs
 *   (https://docs.slack.dev/reference/events/function_executed);
 * - `app_token`: the app-level token (`xapp-…`) of Socket Mode;
 * - `socket_url`: the WebSocket URL `apps.connections.open` answers, whose `ticket` opens a
 *   connection (https://docs.slack.dev/reference/methods/apps.connections.open);
 * - `oauth_code`, `oauth_state`: an install's code (exchanged once for its tokens,
 *   https://docs.slack.dev/authentication/installing-with-oauth) and the state it came back
 *   with;
 * - `response_url`: posts as the app into the conversation for 30 minutes
 *   (https://docs.slack.dev/interactivity/handling-user-interaction);
 * - `trigger_id`: opens a modal in front of the person for 3 seconds.
 */
export type CapabilityKind =
  | "token"
  | "refresh_token"
  | "step_token"
  | "app_token"
  | "socket_url"
  | "oauth_code"
  | "oauth_state"
  | "response_url"
  | "trigger_id";

export interface Capability {
  kind: CapabilityKind;
  value: string;
}

/** Fields of a delivered payload that carry a capability, at any depth. */
const PAYLOAD_FIELDS: Record<string, CapabilityKind> = {
  trigger_id: "trigger_id",
  response_url: "response_url",
  bot_access_token: "step_token",
};

/**
 * Every capability one fake Slack handed the app: the tokens it issued, the codes and
 * states of installs, Socket Mode's URLs, and what the payloads delivered to the app carried.
 * A test lists them (`fake.handedOut()`) and looks for each in the app's log.
 */
export class HandedOut {
  readonly #values = new Map<string, CapabilityKind>();

  add(kind: CapabilityKind, value: string | null | undefined): void {
    if (value !== null && value !== undefined && value !== "") this.#values.set(value, kind);
  }

  /** Records the capabilities a payload Slack delivers carries (`trigger_id`, …). */
  fromPayload(payload: unknown): void {
    if (Array.isArray(payload)) {
      for (const item of payload) this.fromPayload(item);
      return;
    }
    if (typeof payload !== "object" || payload === null) return;
    for (const [key, value] of Object.entries(payload)) {
      const kind = PAYLOAD_FIELDS[key];
      if (kind !== undefined && typeof value === "string") this.add(kind, value);
      else this.fromPayload(value);
    }
  }

  list(): Capability[] {
    return [...this.#values].map(([value, kind]) => ({ kind, value }));
  }
}
