import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import type { FakeSocketMode } from "../../support/fake-slack/socket-mode-server.ts";
import { eventually } from "../../support/helpers/eventually.ts";

/** A published Socket Mode message (test/fixtures/slack-socket-mode/README.md says whence). */
function fixture(name: string): Record<string, unknown> {
  const url = new URL(`../fixtures/slack-socket-mode/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Record<string, unknown>;
}

/** The structure of a JSON value: keys and value types, not values. */
function shapeOf(value: unknown): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value !== "object") return typeof value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a.localeCompare(b),
  );
  return Object.fromEntries(entries.map(([key, inner]) => [key, shapeOf(inner)]));
}

/** An envelope's own fields, its payload left out (that is any Slack payload). */
const envelopeShape = (message: Record<string, unknown>) =>
  shapeOf({ ...message, payload: "the payload" });

/** A bare WebSocket client (Node's own), as a hand-written Socket Mode app would be. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  const messages: Record<string, unknown>[] = [];
  let closed: { code: number } | undefined;
  ws.addEventListener("message", (e) => messages.push(JSON.parse(String(e.data))));
  ws.addEventListener("close", (e) => {
    closed = { code: e.code };
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve());
    ws.addEventListener("error", () => reject(new Error("the WebSocket did not open")));
  });
  return {
    ws,
    messages,
    closed: () => closed,
    /** The first message of `type` not taken yet (waits up to 3 s for it). */
    async next(type: string): Promise<Record<string, unknown>> {
      const find = () => messages.findIndex((m) => m.type === type);
      const index = await eventually(find, (i) => i >= 0, { timeoutMs: 3000, what: type });
      return messages.splice(index, 1)[0] as Record<string, unknown>;
    },
    ack(envelope: Record<string, unknown>, payload?: unknown) {
      ws.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload }));
    },
  };
}

const until = async (check: () => boolean, ms = 3000) => {
  await eventually(check, (ok) => ok, ms);
};

let fake: FakeSlack;
let socket: FakeSocketMode;
const clients: Awaited<ReturnType<typeof connect>>[] = [];

beforeAll(async () => {
  fake = await createFakeSlack({ socketMode: { warningCloseMs: 150, disconnectCloseMs: 150 } });
  socket = fake.socket as FakeSocketMode;
});
afterEach(() => {
  for (const client of clients.splice(0)) client.ws.close();
  fake.reset();
});
afterAll(() => fake.close());

async function openConnection() {
  const res = await fetch(`${fake.apiUrl}apps.connections.open`, {
    method: "POST",
    headers: { authorization: `Bearer ${socket.appToken}` },
  });
  const body = (await res.json()) as { ok: boolean; url: string };
  const client = await connect(body.url);
  clients.push(client);
  return { body, client, hello: await client.next("hello") };
}

describe("apps.connections.open", () => {
  it("answers the app-level token with a single-use ws:// URL shaped as Slack's", async () => {
    const { body, hello } = await openConnection();
    expect(shapeOf(body)).toEqual(shapeOf(fixture("apps.connections.open")));
    expect(body.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=/);
    expect(shapeOf(hello)).toEqual(shapeOf(fixture("hello")));
    expect(hello).toMatchObject({ connection_info: { app_id: fake.appId }, num_connections: 1 });
    await expect(connect(body.url)).rejects.toThrow(/did not open/);
  });

  it("refuses a bot token, and takes no app-level token for bot methods", async () => {
    const call = async (method: string, token: string) => {
      const res = await fetch(`${fake.apiUrl}${method}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });
      return ((await res.json()) as { error?: string }).error;
    };
    expect(await call("apps.connections.open", fake.botToken)).toBe("not_allowed_token_type");
    expect(await call("apps.connections.open", "xapp-1-wrong")).toBe("invalid_auth");
    expect(await call("auth.test", socket.appToken)).toBe("not_allowed_token_type");
    expect(await call("auth.test", fake.botToken)).toBeUndefined();
  });

  it("answers 503 to the WebSocket handshake while connections are refused", async () => {
    socket.knobs.refuseConnections = true;
    const res = await fetch(`${fake.apiUrl}apps.connections.open`, {
      method: "POST",
      headers: { authorization: `Bearer ${socket.appToken}` },
    });
    const { url } = (await res.json()) as { url: string };
    await expect(connect(url)).rejects.toThrow(/did not open/);
  });
});

describe("envelopes", () => {
  it("sends commands and interactions as Slack does and hands back the ack's payload", async () => {
    const { client } = await openConnection();
    const command = socket.send("slash_commands", { command: "/meeting-notes", text: "help" });
    const envelope = await client.next("slash_commands");
    expect(envelopeShape(envelope)).toEqual(envelopeShape(fixture("envelope-slash-commands")));
    expect(envelope.payload).toEqual({ command: "/meeting-notes", text: "help" });
    const answer = fixture("ack-slash-commands").payload;
    client.ack(envelope, answer);
    const result = await command;
    expect(result).toMatchObject({ acked: true, payload: answer });
    expect(result.ms).toBeLessThan(3000);

    const click = socket.send("interactive", { type: "block_actions" });
    const interactive = await client.next("interactive");
    expect(envelopeShape(interactive)).toEqual(
      envelopeShape(fixture("envelope-interactive-block-actions")),
    );
    client.ack(interactive);
    expect(await click).toMatchObject({ acked: true, payload: undefined });
  });

  it("redelivers an event not acked in time, with retry_attempt and retry_reason", async () => {
    const { client } = await openConnection();
    const sent = socket.send("events_api", { event_id: "Ev1" }, { ackTimeoutMs: 100 });
    const first = await client.next("events_api");
    expect(envelopeShape(first)).toEqual(envelopeShape(fixture("envelope-events-api-retry")));
    expect(first).toMatchObject({ retry_attempt: 0, retry_reason: "" });
    const second = await client.next("events_api");
    expect(second).toMatchObject({ retry_attempt: 1, retry_reason: "timeout" });
    expect(second.envelope_id).not.toBe(first.envelope_id);
    expect(second.payload).toEqual(first.payload);
    client.ack(second);
    const result = await sent;
    expect(result.acked).toBe(true);
    expect(result.deliveries.map((d) => [d.attempt, d.ackedAt !== undefined])).toEqual([
      [0, false],
      [1, true],
    ]);
  });

  it("redelivers an event whose ack was lost, and never redelivers a command", async () => {
    const { client } = await openConnection();
    socket.knobs.loseAcks = 1;
    const sent = socket.send("events_api", { event_id: "Ev2" }, { ackTimeoutMs: 100 });
    client.ack(await client.next("events_api"));
    client.ack(await client.next("events_api"));
    expect((await sent).deliveries.map((d) => d.lostAcks)).toEqual([1, 0]);

    const command = socket.send("slash_commands", { text: "" }, { ackTimeoutMs: 100 });
    await client.next("slash_commands");
    expect(await command).toMatchObject({ acked: false, deliveries: [{ attempt: 0 }] });
  });
});

describe("disconnect", () => {
  it.each(["warning", "refresh_requested", "link_disabled"] as const)(
    "sends %s as Slack does and closes the connection if the app does not",
    async (reason) => {
      const { client } = await openConnection();
      const [connection] = socket.openConnections();
      socket.disconnect(reason);
      const message = await client.next("disconnect");
      expect(message).toMatchObject({ reason });
      expect(shapeOf(message)).toEqual(shapeOf(fixture(`disconnect-${reason.replace("_", "-")}`)));
      // The client may see the close a moment before the server has recorded it.
      await until(() => client.closed() !== undefined && connection?.closedBy !== undefined);
      expect(connection).toMatchObject({ closedBy: "server", closeCode: 1001 });
    },
  );

  it("records a clean close by the app", async () => {
    const { client } = await openConnection();
    const [connection] = socket.openConnections();
    socket.disconnect("refresh_requested");
    await client.next("disconnect");
    client.ws.close(1000);
    await until(() => connection?.closedAt !== undefined);
    expect(connection).toMatchObject({ closedBy: "app", closeCode: 1000 });
  });
});
