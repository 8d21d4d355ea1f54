import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type {
  EnvelopeType,
  FakeConnection,
  FakeDelivery,
  FakeSocketMode,
  FakeSocketModeOptions,
  SendOptions,
  SocketModeKnobs,
} from "./socket-mode-types.ts";

export type {
  DisconnectReason,
  EnvelopeType,
  FakeConnection,
  FakeDelivery,
  FakeSocketMode,
  FakeSocketModeOptions,
  SendOptions,
  SendResult,
  SocketModeKnobs,
} from "./socket-mode-types.ts";

interface Live {
  record: FakeConnection;
  ws: WebSocket;
}

interface Pending {
  delivery: FakeDelivery;
  done: () => void;
}

/**
 * Starts a fake of Slack's Socket Mode endpoint on 127.0.0.1 (a free port), speaking the
 * protocol as https://docs.slack.dev/apis/events-api/using-socket-mode describes it (the
 * published messages are in test/fixtures/slack-socket-mode/): a `hello` on connect, envelopes
 * with `envelope_id` and `accepts_response_payload`, acks `{envelope_id, payload?}`,
 * redelivery of an `events_api` envelope not acked in time (`retry_attempt`,
 * `retry_reason`), `disconnect` messages, and pings as a live server sends them.
 */
export async function createFakeSocketMode(
  options: FakeSocketModeOptions = {},
): Promise<FakeSocketMode> {
  const appId = options.appId ?? "A0FAKEAPP";
  const appToken = `xapp-1-${appId}-${randomBytes(12).toString("hex")}`;
  const knobs: SocketModeKnobs = {};
  const connections: FakeConnection[] = [];
  const deliveries: FakeDelivery[] = [];
  const tickets = new Set<string>();
  const live = new Map<number, Live>();
  const pending = new Map<string, Pending>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters = new Set<() => void>();
  const serverClosed = new Set<number>();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const wss = new WebSocketServer({ noServer: true });
  const http: Server = createServer((_req, res) => void res.writeHead(404).end());
  const sockets = new Set<Socket>();
  http.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  http.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const ticket = new URL(req.url ?? "/", "ws://x").searchParams.get("ticket") ?? "";
    const refusal = knobs.refuseConnections
      ? "503 Service Unavailable"
      : !tickets.delete(ticket)
        ? "401 Unauthorized"
        : undefined;
    if (refusal !== undefined) {
      // The client may reset the connection before or while it reads the refusal: an
      // ECONNRESET here is expected, not a crash of the test process.
      socket.on("error", () => {});
      socket.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, ticket));
  });

  const accept = (ws: WebSocket, ticket: string) => {
    const record: FakeConnection = { id: connections.length + 1, ticket, openedAt: Date.now() };
    connections.push(record);
    live.set(record.id, { record, ws });
    const ping = setInterval(() => ws.ping(), options.pingIntervalMs ?? 5_000);
    ws.on("message", (data: RawData, isBinary: boolean) => {
      if (!isBinary) onAck(String(data));
    });
    ws.on("error", () => {});
    ws.on("close", (code: number) => {
      clearInterval(ping);
      live.delete(record.id);
      record.closedAt = Date.now();
      record.closeCode = code;
      record.closedBy = serverClosed.has(record.id) ? "server" : "app";
    });
    sendJson(ws, {
      type: "hello",
      num_connections: live.size,
      debug_info: {
        host: "applink-fake",
        started: new Date().toISOString().replace("T", " ").slice(0, 23),
        build_number: 1,
        approximate_connection_time: 3600,
      },
      connection_info: { app_id: appId },
    });
    for (const wake of [...waiters]) wake();
  };

  /** This server closes a connection (still open) itself. */
  const closeFromServer = (id: number, code: number, reason: string) => {
    const open = live.get(id);
    if (open === undefined) return;
    serverClosed.add(id);
    open.ws.close(code, reason);
  };

  const onAck = (text: string) => {
    let ack: { envelope_id?: unknown; payload?: unknown };
    try {
      ack = JSON.parse(text) as typeof ack;
    } catch {
      return;
    }
    const waiting = typeof ack.envelope_id === "string" ? pending.get(ack.envelope_id) : undefined;
    if (waiting === undefined) return;
    waiting.delivery.ackMs ??= Date.now() - waiting.delivery.sentAt;
    if ((knobs.loseAcks ?? 0) > 0) {
      knobs.loseAcks = (knobs.loseAcks ?? 0) - 1;
      waiting.delivery.lostAcks += 1;
      return;
    }
    pending.delete(waiting.delivery.envelopeId);
    waiting.delivery.ackedAt = Date.now();
    waiting.delivery.ackPayload = ack.payload;
    waiting.done();
  };

  /** The newest open connection, waiting up to `ms` for one (the app may be reconnecting). */
  const connection = async (ms: number): Promise<Live | undefined> => {
    const until = Date.now() + ms;
    for (;;) {
      const newest = [...live.values()].at(-1);
      if (newest !== undefined) return newest;
      const left = until - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
        later(left, wake);
      });
    }
  };

  /** One delivery: resolves true when acked within `ackTimeoutMs`. */
  const deliver = async (
    type: EnvelopeType,
    payload: unknown,
    attempt: number,
    options: Required<SendOptions>,
    all: FakeDelivery[],
  ): Promise<boolean> => {
    const to = await connection(options.ackTimeoutMs);
    if (to === undefined) return false;
    const delivery: FakeDelivery = {
      envelopeId: randomUUID(),
      type,
      attempt,
      connection: to.record.id,
      sentAt: Date.now(),
      lostAcks: 0,
    };
    deliveries.push(delivery);
    all.push(delivery);
    const acked = new Promise<boolean>((resolve) => {
      pending.set(delivery.envelopeId, { delivery, done: () => resolve(true) });
      later(options.ackTimeoutMs, () => {
        if (pending.delete(delivery.envelopeId)) resolve(false);
      });
    });
    sendJson(to.ws, {
      envelope_id: delivery.envelopeId,
      payload,
      type,
      accepts_response_payload: options.acceptsResponsePayload,
      ...(type === "events_api"
        ? { retry_attempt: attempt, retry_reason: attempt === 0 ? "" : "timeout" }
        : {}),
    });
    return acked;
  };

  await listen(http);
  return {
    appToken,
    knobs,
    connections,
    deliveries,
    openUrl() {
      const ticket = randomUUID();
      tickets.add(ticket);
      const { port } = http.address() as AddressInfo;
      return `ws://127.0.0.1:${port}/link/?ticket=${ticket}&app_id=${appId}`;
    },
    openConnections: () => [...live.values()].map((l) => l.record),
    async send(type, payload, sendOptions = {}) {
      const resolved: Required<SendOptions> = {
        ackTimeoutMs: sendOptions.ackTimeoutMs ?? 3_000,
        maxRetries: type === "events_api" ? (sendOptions.maxRetries ?? 3) : 0,
        acceptsResponsePayload: sendOptions.acceptsResponsePayload ?? type !== "events_api",
      };
      const started = Date.now();
      const all: FakeDelivery[] = [];
      for (let attempt = 0; attempt <= resolved.maxRetries; attempt += 1) {
        if (await deliver(type, payload, attempt, resolved, all)) {
          const last = all.at(-1);
          return {
            acked: true,
            payload: last?.ackPayload,
            ms: (last?.ackedAt ?? Date.now()) - started,
            deliveries: all,
          };
        }
      }
      return { acked: false, payload: undefined, ms: Date.now() - started, deliveries: all };
    },
    disconnect(reason) {
      const closeMs =
        reason === "warning"
          ? (options.warningCloseMs ?? 10_000)
          : (options.disconnectCloseMs ?? 1_000);
      for (const { record, ws } of live.values()) {
        sendJson(ws, { type: "disconnect", reason, debug_info: { host: "wss-fake.slack.test" } });
        later(closeMs, () => closeFromServer(record.id, 1001, reason));
      }
    },
    reset() {
      deliveries.length = 0;
      for (const key of Object.keys(knobs)) delete knobs[key as keyof SocketModeKnobs];
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const wake of [...waiters]) wake();
      for (const { record, ws } of live.values()) {
        // A connection already closing that this server did not close: the app closed it.
        if (ws.readyState === ws.OPEN) serverClosed.add(record.id);
        ws.terminate();
      }
      wss.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

function sendJson(ws: WebSocket, message: unknown): void {
  ws.send(JSON.stringify(message));
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}
