/** What tests see of the fake Socket Mode server (`socket-mode-server.ts`). */

export type EnvelopeType = "events_api" | "slash_commands" | "interactive";
export type DisconnectReason = "warning" | "refresh_requested" | "link_disabled";

/** Fault knobs, read as things happen; change them freely. */
export interface SocketModeKnobs {
  /** The next `n` acks are ignored, as if they arrived too late: the envelope times out. */
  loseAcks?: number;
  /** WebSocket handshakes answer 503, as when Slack's socket servers cannot be reached. */
  refuseConnections?: boolean;
}

/** One WebSocket the app opened. */
export interface FakeConnection {
  id: number;
  ticket: string;
  openedAt: number;
  closedAt?: number;
  /** The close code the connection ended with (1000: a clean close). */
  closeCode?: number;
  /** Who started the close: the app, or this server (after a `disconnect`, or on `close()`). */
  closedBy?: "app" | "server";
}

/** One envelope put on the wire, and what came back. */
export interface FakeDelivery {
  envelopeId: string;
  type: EnvelopeType;
  /** 0 for the first delivery, then 1, 2, … for redeliveries of the same payload. */
  attempt: number;
  connection: number;
  sentAt: number;
  /** From sending to the app's first ack, whether it counted or was lost on purpose. */
  ackMs?: number;
  /** When an ack that counted arrived. */
  ackedAt?: number;
  /** The ack's `payload`, as sent (Bolt sends `{}` for a plain ack). */
  ackPayload?: unknown;
  /** Acks dropped by the `loseAcks` knob. */
  lostAcks: number;
}

/** The outcome of {@link FakeSocketMode.send}. */
export interface SendResult {
  acked: boolean;
  /** The ack's payload (undefined when not acked). */
  payload: unknown;
  /** From the first delivery to the ack that counted (or to giving up). */
  ms: number;
  deliveries: FakeDelivery[];
}

export interface SendOptions {
  /** How long each delivery waits for its ack; Slack's window is 3 s. */
  ackTimeoutMs?: number;
  /**
   * Redeliveries of an `events_api` envelope after a missed ack (default 3, as for HTTP
   * events). Commands and interactions are never redelivered: Slack tells the person the
   * app did not answer instead.
   */
  maxRetries?: number;
  /** Default: true for commands and interactions, false for events (as Slack's examples). */
  acceptsResponsePayload?: boolean;
}

export interface FakeSocketModeOptions {
  appId?: string;
  /** How often the server pings each connection (Slack's clients expect pings). */
  pingIntervalMs?: number;
  /** After a `warning`, the server closes the connection itself after this long. */
  warningCloseMs?: number;
  /** After `refresh_requested` / `link_disabled`, it closes the connection after this long. */
  disconnectCloseMs?: number;
}

export interface FakeSocketMode {
  readonly appToken: string;
  readonly knobs: SocketModeKnobs;
  readonly connections: readonly FakeConnection[];
  readonly deliveries: readonly FakeDelivery[];
  /** A fresh single-use `ws://` URL: what `apps.connections.open` answers. */
  openUrl(): string;
  /** Connections open now that were sent `hello`. */
  openConnections(): FakeConnection[];
  /** Sends `payload` in an envelope and waits for the ack (redelivering events as Slack does). */
  send(type: EnvelopeType, payload: unknown, options?: SendOptions): Promise<SendResult>;
  /** Sends `disconnect` on every open connection; closes them later if the app does not. */
  disconnect(reason: DisconnectReason): void;
  /** Forgets deliveries and clears the knobs; connections stay. */
  reset(): void;
  close(): Promise<void>;
}
