import { EventEmitter } from "node:events";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createSocketConnection,
  type SocketClient,
} from "../../src/slack/connection/socket-connection.ts";

/** Bolt's Socket Mode client as the connection sees it; `start` fails while Slack is out of reach. */
function fakeClient() {
  const events = new EventEmitter();
  let reachable = true;
  const client = {
    starts: 0,
    set reachable(value: boolean) {
      reachable = value;
    },
    async start() {
      client.starts += 1;
      if (!reachable)
        throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
      events.emit("connected");
    },
    async disconnect() {},
    on(event: "connected" | "disconnected", listener: () => void) {
      events.on(event, listener);
    },
    drop: () => events.emit("disconnected"),
  };
  return client satisfies SocketClient & Record<string, unknown>;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the Socket Mode connection", () => {
  it("tries again with a doubling wait while Slack is out of reach, and never after stop", async () => {
    vi.useFakeTimers();
    const client = fakeClient();
    const connection = createSocketConnection({
      client,
      logger: pino({ level: "silent" }),
      backoff: { baseMs: 100, maxMs: 400 },
    });
    await connection.start();
    client.reachable = false;
    client.drop();
    // At once, then after 100, 200 and 400 ms.
    await vi.advanceTimersByTimeAsync(0);
    expect(client.starts).toBe(2);
    await vi.advanceTimersByTimeAsync(700);
    expect(client.starts).toBe(5);
    expect(connection.connected).toBe(false);

    // Stopped in the middle of a wait: the loop ends, however long the clock then runs.
    await vi.advanceTimersByTimeAsync(150);
    await connection.stop();
    const attempts = client.starts;
    client.reachable = true;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(client.starts).toBe(attempts);
    expect(vi.getTimerCount()).toBe(0);
  });
});
