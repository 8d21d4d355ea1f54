import { randomBytes } from "node:crypto";
import type { ConnectHost } from "../fake-slack/fake-slack-types.ts";
import { type CommandInput, commandFields, eventCallback } from "../fake-slack/slack-payloads.ts";
import { sendAction, sendCommand, sendEvent } from "../fake-slack/slack-request.ts";
import type {
  FakeDelivery,
  FakeSocketMode,
  SendOptions,
} from "../fake-slack/socket-mode-server.ts";

/** What the app did with something Slack delivered, whichever way it came. */
export interface Delivered {
  /** HTTP: answered 200. Socket Mode: acked within the window. */
  acked: boolean;
  /**
   * What the app answered with: the HTTP body as JSON, or the ack's `payload`; undefined
   * for a plain ack (an empty body, or the `{}` Bolt puts in a plain ack over the socket).
   */
  payload: unknown;
  /** From sending to the answer (Socket Mode: to the ack that counted). */
  ms: number;
  /** Socket Mode: each envelope put on the wire (redeliveries too). */
  deliveries?: FakeDelivery[];
}

/**
 * How a test delivers what Slack sends — events, slash commands, interactions (clicks and
 * modal submissions) — so one test reads the same in HTTP mode and in Socket Mode.
 */
export interface SlackDelivery {
  readonly mode: "http" | "socket";
  /**
   * An Events API event in its `event_callback` wrapper; returns its `event_id` too. `host`:
   * it happened in a Slack Connect channel that workspace hosts (the envelope names it).
   */
  event(
    event: Record<string, unknown>,
    options?: { eventId?: string; host?: ConnectHost } & SendOptions,
  ): Promise<Delivered & { eventId: string }>;
  command(input: CommandInput): Promise<Delivered>;
  /** `block_actions`, `view_submission`, … payloads. */
  interaction(payload: Record<string, unknown>): Promise<Delivered>;
}

const newEventId = () => `Ev0${randomBytes(5).toString("hex").toUpperCase()}`;

/** Deliveries as signed HTTP requests to `url` (`POST /slack/events`). */
export function httpDelivery(url: string, signingSecret: string, teamId: string): SlackDelivery {
  const timed = async (send: () => Promise<{ status: number; json: unknown }>) => {
    const started = Date.now();
    const res = await send();
    return { acked: res.status === 200, payload: res.json, ms: Date.now() - started };
  };
  return {
    mode: "http",
    async event(event, options = {}) {
      const eventId = options.eventId ?? newEventId();
      const delivered = await timed(() =>
        sendEvent(url, signingSecret, event, { teamId, eventId, host: options.host }),
      );
      return { ...delivered, eventId };
    },
    command: (input) => timed(() => sendCommand(url, signingSecret, input)),
    interaction: (payload) => timed(() => sendAction(url, signingSecret, payload)),
  };
}

/** Deliveries as envelopes over the fake Socket Mode server's open connection. */
export function socketDelivery(socket: FakeSocketMode, teamId: string): SlackDelivery {
  const send = async (...args: Parameters<FakeSocketMode["send"]>): Promise<Delivered> => {
    const result = await socket.send(...args);
    const { payload } = result;
    const plain =
      typeof payload === "object" && payload !== null && Object.keys(payload).length === 0;
    const { acked, ms, deliveries } = result;
    return { acked, payload: plain ? undefined : payload, ms, deliveries };
  };
  return {
    mode: "socket",
    async event(event, options = {}) {
      const eventId = options.eventId ?? newEventId();
      const delivered = await send(
        "events_api",
        eventCallback(event, { teamId, eventId, host: options.host }),
        options,
      );
      return { ...delivered, eventId };
    },
    command: (input) => send("slash_commands", commandFields(input)),
    interaction: (payload) => send("interactive", payload),
  };
}
