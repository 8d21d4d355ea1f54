import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Writable } from "node:stream";
import { type Dispatcher, getGlobalDispatcher, MockAgent, setGlobalDispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type MeetingNotesApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createFakeSlack, type FakeSlack } from "../fakes/slack/create-fake-slack.ts";

/** RFC 6455's fixed GUID for `Sec-WebSocket-Accept`. */
const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** One unmasked text frame (server to client). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const head =
    payload.length < 126
      ? Buffer.from([0x81, payload.length])
      : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, payload]);
}

/**
 * A Socket Mode endpoint that accepts the WebSocket and says `hello` (Slack's first message,
 * https://api.slack.com/apis/socket-mode), then ignores what it is sent: enough for Bolt's
 * Socket Mode client to count as connected.
 */
function helloServer(): { server: Server; sockets: Set<Socket> } {
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => void res.writeHead(404).end());
  server.on("upgrade", (req, socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    const key = String(req.headers["sec-websocket-key"]);
    const accept = createHash("sha1").update(`${key}${WS_GUID}`).digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    const hello = {
      type: "hello",
      num_connections: 1,
      debug_info: { host: "applink-fake", approximate_connection_time: 18060 },
      connection_info: { app_id: "A0FAKEAPP" },
    };
    socket.write(textFrame(JSON.stringify(hello)));
  });
  return { server, sockets };
}

describe("Socket Mode", () => {
  let fake: FakeSlack;
  let app: MeetingNotesApp;
  let base: string;
  let ws: ReturnType<typeof helloServer>;
  let previous: Dispatcher;
  let agent: MockAgent;

  beforeAll(async () => {
    fake = await createFakeSlack();
    ws = helloServer();
    await new Promise<void>((resolve) => ws.server.listen(0, "127.0.0.1", resolve));
    const wsUrl = `ws://127.0.0.1:${(ws.server.address() as AddressInfo).port}/link`;
    // Bolt's Socket Mode client asks slack.com for its WebSocket URL whatever SLACK_API_URL
    // says; that one call is answered here, and nothing leaves the machine.
    previous = getGlobalDispatcher();
    agent = new MockAgent();
    agent.enableNetConnect(/^127\.0\.0\.1(:\d+)?$/);
    agent
      .get("https://slack.com")
      .intercept({ path: "/api/apps.connections.open", method: "POST" })
      .reply(200, { ok: true, url: wsUrl }, { headers: { "content-type": "application/json" } })
      .persist();
    setGlobalDispatcher(agent);
    const config = loadConfig({
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_APP_TOKEN: "xapp-1-A0FAKEAPP-socket-test",
      SLACK_API_URL: fake.apiUrl,
      NOTE_TAKER_BASE_URL: "http://127.0.0.1:9/api/v1/third-party/note-taker",
      NOTE_TAKER_API_KEY: "socket-test-key",
      STORE_URL: "memory://",
      PORT: "0",
    });
    const logDestination = new Writable({ write: (_chunk, _encoding, done) => done() });
    app = await createApp(config, { logDestination });
    base = `http://127.0.0.1:${await app.start()}`;
  });

  afterAll(async () => {
    await app.stop();
    for (const socket of ws.sockets) socket.destroy();
    await new Promise((resolve) => ws.server.close(resolve));
    await fake.close();
    setGlobalDispatcher(previous);
    await agent.close();
  });

  it("serves the ops routes from our server, and no Slack endpoint", async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/healthz`, { method: "HEAD" })).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { ok: true, store: true, slack: true },
    ]);
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^process_resident_memory_bytes \d+/m);
    expect((await fetch(`${base}/slack/events`, { method: "POST", body: "{}" })).status).toBe(404);
    expect((await fetch(`${base}/`)).status).toBe(404);
    const put = await fetch(`${base}/healthz`, { method: "PUT" });
    expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
  });
});
