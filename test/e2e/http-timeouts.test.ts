import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../support/e2e/stack.ts";
import { rawRequest } from "../../support/helpers/raw-http.ts";

/** Short limits through createApp's deps, so the real app shows its cuts in well under 1 s. */
const timeouts = { headersMs: 300, requestMs: 600, checkEveryMs: 50 };

describe("the real app's HTTP timeouts", () => {
  let stack: Stack;
  let port: number;
  beforeAll(async () => {
    stack = await startStack({}, { httpTimeouts: timeouts });
    port = Number(new URL(stack.url).port);
  });
  afterAll(() => stack.stop());

  it("cuts a Slack request whose body trickles in after the request timeout, serving others", async () => {
    const ts = Math.floor(Date.now() / 1000);
    // Well-formed and fresh signing headers: the body must be read before it can be judged.
    const head = `POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\nContent-Length: 5000\r\nx-slack-signature: v0=${"cd".repeat(32)}\r\nx-slack-request-timestamp: ${ts}\r\n\r\n`;
    const slow = rawRequest(port, head, { trickle: { chunk: "{", everyMs: 30 } });
    // Real time on purpose: a few of its 30 ms trickles in, the slow request is mid-body.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    const answer = await slow;
    answer.socket.destroy();
    expect(answer.status).toBe(408);
    expect(answer.ms).toBeGreaterThanOrEqual(timeouts.requestMs - 20);
    expect(answer.ms).toBeLessThan(timeouts.requestMs + 400);
  });

  it("cuts a request whose headers trickle in after the headers timeout", async () => {
    const answer = await rawRequest(port, "POST /slack/events HTTP/1.1\r\nHost: bot\r\n", {
      trickle: { chunk: "X-Slow: 1\r\n", everyMs: 30 },
    });
    answer.socket.destroy();
    expect(answer.status).toBe(408);
    expect(answer.ms).toBeGreaterThanOrEqual(timeouts.headersMs - 20);
    expect(answer.ms).toBeLessThan(timeouts.requestMs);
  });
});
