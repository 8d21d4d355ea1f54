import { type Dispatcher, getGlobalDispatcher, MockAgent, setGlobalDispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoCapabilityInLog } from "../../support/e2e/log-secrets.ts";
import {
  eventually,
  type Stack,
  shareRecording,
  startStack,
  statusMessage,
} from "../../support/e2e/stack.ts";
import type { FakeSocketMode } from "../../support/fake-slack/socket-mode-server.ts";

/** One sample of a Prometheus text exposition, by name (no labels). */
async function metric(stack: Stack, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${stack.origin}/metrics`)).text();
  const value = new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1];
  return value === undefined ? undefined : Number(value);
}

async function readyz(stack: Stack): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${stack.origin}/readyz`);
  return { status: res.status, body: await res.json() };
}

describe("Socket Mode against the fake Slack", () => {
  let stack: Stack;
  let socket: FakeSocketMode;
  let previous: Dispatcher;
  let agent: MockAgent;
  /** Every request anything in this process made to slack.com. */
  const toSlackCom: string[] = [];

  beforeAll(async () => {
    // Whatever leaves for slack.com is answered here and counted, never sent.
    previous = getGlobalDispatcher();
    agent = new MockAgent();
    agent.enableNetConnect(/^127\.0\.0\.1(:\d+)?$/);
    agent
      .get("https://slack.com")
      .intercept({ path: () => true, method: () => true })
      .reply(200, (options) => {
        toSlackCom.push(String(options.path));
        return { ok: false, error: "not_this_slack" };
      })
      .persist();
    setGlobalDispatcher(agent);
    stack = await startStack({}, { socketMode: true });
    socket = stack.socket as FakeSocketMode;
  });

  afterAll(async () => {
    await stack.stop();
    setGlobalDispatcher(previous);
    await agent.close();
  });

  it("calls apps.connections.open and every other Web API method at SLACK_API_URL", async () => {
    const { ts } = await shareRecording(stack, "api-url.m4a");
    await eventually(
      () => statusMessage(stack.thread(ts)),
      (m) => m !== undefined,
    );
    const opens = stack.fake.callsTo("apps.connections.open");
    expect(opens).toHaveLength(1);
    expect(opens[0]?.headers.authorization).toBe(`Bearer ${socket.appToken}`);
    expect(opens[0]?.error).toBeUndefined();
    const methods = new Set(stack.fake.calls.map((c) => c.method));
    for (const method of ["auth.test", "users.info", "chat.postMessage"]) {
      expect(methods).toContain(method);
    }
    const botCalls = stack.fake.calls.filter((c) => c.method !== "apps.connections.open");
    const auth = new Set(botCalls.map((c) => c.headers.authorization));
    expect([...auth]).toEqual([`Bearer ${stack.fake.botToken}`]);
    expect(toSlackCom).toEqual([]);
  });

  it("serves the ops routes from our server, and no Slack endpoint", async () => {
    expect((await fetch(`${stack.origin}/healthz`)).status).toBe(200);
    expect((await fetch(`${stack.origin}/healthz`, { method: "HEAD" })).status).toBe(200);
    expect(await readyz(stack)).toEqual({
      status: 200,
      body: { ok: true, store: true, slack: true, disk: true, socket: true },
    });
    expect(await metric(stack, "meeting_notes_socket_mode_connected")).toBe(1);
    expect(await metric(stack, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect((await fetch(`${stack.url}`, { method: "POST", body: "{}" })).status).toBe(404);
    expect((await fetch(`${stack.origin}/`)).status).toBe(404);
    const put = await fetch(`${stack.origin}/healthz`, { method: "PUT" });
    expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
  });

  it("is not ready while the socket is down, and counts the reconnection", async () => {
    const before = (await metric(stack, "meeting_notes_socket_mode_reconnects_total")) ?? -1;
    socket.knobs.refuseConnections = true;
    socket.disconnect("refresh_requested");
    const down = await eventually(
      () => readyz(stack),
      (r) => r.status === 503,
    );
    expect(down.body).toEqual({ ok: false, store: true, slack: true, disk: true, socket: false });
    expect(await metric(stack, "meeting_notes_socket_mode_connected")).toBe(0);
    // Refused handshakes: the bot keeps asking for new URLs, with a growing wait.
    await eventually(
      () => stack.fake.callsTo("apps.connections.open").length,
      (n) => n >= 4,
    );
    socket.knobs.refuseConnections = false;
    await eventually(
      () => readyz(stack),
      (r) => r.status === 200,
    );
    expect(await metric(stack, "meeting_notes_socket_mode_connected")).toBe(1);
    expect(await metric(stack, "meeting_notes_socket_mode_reconnects_total")).toBe(before + 1);
    expect(socket.openConnections()).toHaveLength(1);
  });

  it("counts each rate-limited apps.connections.open as a failed attempt, never asks inside its Retry-After, then connects", async () => {
    const opens = stack.fake.callsTo("apps.connections.open").length;
    const failures = () => stack.logs.filter((l) => l.includes("reconnection attempt failed"));
    const failed = failures().length;
    // Rate-limited calls are not retried by the client (a person may be waiting on it):
    // each 429 fails one reconnection attempt, and the next waits out Slack's Retry-After.
    stack.fake.knobs.rateLimit = { method: "apps.connections.open", count: 3, retryAfter: 0 };
    socket.disconnect("refresh_requested");
    await eventually(
      () => readyz(stack),
      (r) => r.status === 200 && stack.fake.callsTo("apps.connections.open").length > opens,
    );
    const calls = stack.fake.callsTo("apps.connections.open").slice(opens);
    expect(calls.map((c) => c.status)).toEqual([429, 429, 429, 200]);
    expect(failures().length).toBeGreaterThanOrEqual(failed + 3);
    expect(stack.fake.violations).toEqual([]);
  });

  it.each(["warning", "link_disabled"] as const)(
    "leaves the socket at once on a %s disconnect and connects again",
    async (reason) => {
      const [before] = socket.openConnections();
      socket.disconnect(reason);
      await eventually(
        () => socket.openConnections(),
        (open) => open.length === 1 && open[0]?.id !== before?.id,
      );
      // The app closed it (the server would only after its grace period).
      expect(before).toMatchObject({ closedBy: "app", closeCode: 1000 });
      expect((await readyz(stack)).status).toBe(200);
    },
  );

  it("acks an envelope Bolt cannot read, as HTTP answers it 400, so it is not sent again", async () => {
    for (const payload of [{ type: "view_submission" }, null]) {
      const sent = await socket.send("interactive", payload, { ackTimeoutMs: 1000 });
      expect(sent).toMatchObject({ acked: true, payload: {} });
    }
    expect(stack.logs.join("")).toContain("a Slack envelope could not be processed");
  });

  it("never writes the app-level token, a socket's ticket or the bot token to the log", () => {
    const log = stack.logs.join("");
    expect(log).toContain("apps.connections.open");
    expectNoCapabilityInLog(log, {
      fake: stack.fake,
      secrets: stack.secrets(),
      handedOut: ["token", "app_token", "socket_url"],
    });
  });
});

describe("Socket Mode shutdown", () => {
  it("closes the socket with a clean close before the app has stopped", async () => {
    const stack = await startStack({}, { socketMode: true });
    const socket = stack.socket as FakeSocketMode;
    const [connection] = socket.openConnections();
    // The app stops first, then the fake: a socket still open then would be closed by the
    // server (closedBy "server", code 1006).
    await stack.stop();
    expect(connection).toMatchObject({ closedBy: "app", closeCode: 1000 });
    expect(stack.logs.join("")).not.toContain("did not close in time");
  });

  it("stops trying to reconnect when it is stopped while the socket is down", async () => {
    const stack = await startStack({}, { socketMode: true });
    const socket = stack.socket as FakeSocketMode;
    socket.knobs.refuseConnections = true;
    socket.disconnect("refresh_requested");
    await eventually(
      () => stack.fake.callsTo("apps.connections.open").length,
      (n) => n >= 3,
    );
    const started = Date.now();
    await stack.app.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    // stop() returns once the reconnection loop has ended (no attempt can follow: with a
    // clock run on for a minute, test/slack/socket-connection.test.ts), and nothing is open.
    expect(socket.openConnections()).toEqual([]);
    await stack.emulator.close();
    await stack.fake.close();
    await stack.temp.cleanup();
  });
});
