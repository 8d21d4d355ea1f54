import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, toSlackLogger } from "../src/logger.ts";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { lines, destination };
}

describe("logger", () => {
  it("redacts secrets by path and by value", () => {
    const { lines, destination } = capture();
    const secret = "xoxb-super-secret-token";
    const logger = createLogger({ level: "info", secrets: [secret], destination });
    logger.info(
      { config: { slack: { botToken: secret } }, headers: { "x-api-key": "k-123456789" } },
      "boot",
    );
    logger.error({ err: new Error(`request failed for ${secret}`) }, "oops");
    const text = lines.join("");
    expect(text).not.toContain(secret);
    expect(text).not.toContain("k-123456789");
    expect(text).toContain("[redacted]");
  });

  it("scrubs every configured secret whatever its length, and each line stays its JSON", () => {
    const { lines, destination } = capture();
    // A 2-character key, one that is a word of every line, and one that JSON escapes.
    const secrets = ["k9", "level", 'a"b\\c'];
    const logger = createLogger({ level: "info", secrets, destination });
    logger.info({ detail: { deep: ["the key k9", 'quoted a"b\\c'] } }, "the level is k9");
    logger.error({ err: new Error("refused k9") }, "oops");
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.map((p) => p.level)).toEqual([30, 50]);
    expect(parsed[0]).toMatchObject({
      msg: "the [redacted] is [redacted]",
      detail: { deep: ["the key [redacted]", "quoted [redacted]"] },
    });
    for (const line of lines) {
      const values = JSON.stringify(Object.values(JSON.parse(line)));
      for (const secret of secrets) expect(values).not.toContain(secret);
    }
  });

  // Slack's own examples where it publishes them (views.open, oauth.v2.access), else the
  // shapes the fake Slack hands out.
  const CAPABILITIES = {
    "bot token": "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
    "user token": "xoxp-1234-5678-90ab-cdefcdef0123",
    "rotating token": "xoxe.xoxb-1-MS0yLTIxMTY1NzM5NDItNjQyNzM0",
    "refresh token": "xoxe-1-My0xLTIxMTY1NzM5NDItNjQyNzM0NzA1",
    "app-level token": "xapp-1-A0FAKEAPP-1234-abcdef0123456789",
    "Workflow step token": "xwfp-0f3a9c2e1b7d4a5f8e6c0b2a9d1e3f4a",
    response_url: "https://hooks.slack.com/actions/T0ALPHA/1234567890/EXgs2Lkn3kzXQ3bPWPCL",
    "incoming webhook": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXX",
    trigger_id: "12345.98765.abcd2358fdea",
    "OAuth code": "4724469134.4644010092847.232b4e6d82c333b1e2e3b5a3ec5d0d1b8f8c1b6c2d6e",
    "OAuth state": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpbnN0YWxsT3B0aW9ucyI6e319.c2lnbmF0dXJl",
  };

  it("scrubs every capability Slack hands out by its shape, in messages, fields and errors", () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: "debug", destination });
    for (const [what, value] of Object.entries(CAPABILITIES)) {
      logger.info(`${what}: ${value}.`);
      logger.info(`${what} after a line break:\n${value}`);
      logger.info({ detail: { nested: [value] } }, what);
      logger.error({ err: new Error(`failed with ${value}`) }, what);
    }
    logger.info("/slack/oauth_redirect?code=4724.4644.232b4e6d&state=abc.def");
    logger.info("wss://wss-primary.slack.com/link/?ticket=9a8b7c6d-1234&app_id=A0FAKEAPP");
    logger.info({ body: { trigger_id: "anything", response_url: "http://127.0.0.1:9/r/1" } });
    const text = lines.join("");
    for (const value of Object.values(CAPABILITIES)) expect(text).not.toContain(value);
    for (const value of ["4724.4644", "abc.def", "9a8b7c6d", "anything", "127.0.0.1:9/r/1"]) {
      expect(text).not.toContain(value);
    }
    expect(text).toContain("app_id=A0FAKEAPP");
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it("keeps what only looks near a capability: timestamps, client ids, addresses, error codes", () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: "info", destination });
    const kept = "message 1712345678.123456 by client 1234.5678 at 127.0.0.1:3000, v24.22.3";
    logger.info({ code: "slack_webapi_platform_error", state: "notes" }, kept);
    const [line] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(line).toMatchObject({ msg: kept, code: "slack_webapi_platform_error", state: "notes" });
  });

  it("writes the debug lines of Slack's SDKs that carry a payload without it", () => {
    const { lines, destination } = capture();
    const slack = toSlackLogger(createLogger({ level: "debug", destination }));
    // Each line as @slack/socket-mode, @slack/web-api, @slack/oauth and Bolt write it.
    const payload = JSON.stringify({ envelope_id: "e1", payload: { secretish: "PAYLOAD-1" } });
    slack.debug(`Received a message on the WebSocket: ${payload}`);
    slack.debug(`Unable to parse an incoming WebSocket message (will ignore): x, ${payload}`);
    slack.debug(`Sending a WebSocket message: ${payload}`);
    slack.debug(`Calling ack() - type: interactive, envelope_id: e1, data: ${payload}`);
    slack.debug(`http request body: ${payload}`);
    slack.debug(`http request result: ${payload}`);
    slack.debug(`Generated authorize URL: https://slack.com/oauth/v2/authorize?PAYLOAD-1`);
    slack.debug(`ack() call begins (body: ${payload})`);
    slack.debug(`ack() response sent (body: ${payload})`);
    slack.debug(`ack() response stored (body: ${payload})`);
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toHaveLength(10);
    for (const message of messages) expect(message).not.toContain("PAYLOAD-1");
    expect(messages[0]).toBe("Received a message on the WebSocket: (not logged)");
    expect(messages[3]).toBe(
      "Calling ack() - type: interactive, envelope_id: e1, data: (not logged)",
    );
  });

  it("adapts to the logger interface Bolt expects", () => {
    const { lines, destination } = capture();
    const slack = toSlackLogger(createLogger({ level: "debug", destination }));
    slack.setName("bolt-app");
    slack.info("hello", { a: 1 });
    slack.error(new Error("boom"));
    expect(slack.getLevel()).toBe("debug");
    const parsed = lines.map((line) => JSON.parse(line));
    expect(parsed[0]).toMatchObject({ name: "bolt-app", msg: 'hello {"a":1}', level: 30 });
    expect(parsed[1]).toMatchObject({ level: 50, err: { message: "boom" } });
  });

  it("does not build Bolt's debug lines when LOG_LEVEL leaves them out", () => {
    const { lines, destination } = capture();
    const slack = toSlackLogger(createLogger({ level: "info", destination }));
    let serialized = 0;
    const payload = {
      toJSON() {
        serialized++;
        return { big: "body" };
      },
    };
    slack.debug("ack() begins", payload);
    expect(serialized).toBe(0);
    expect(lines).toEqual([]);
    slack.info("kept", payload);
    expect(serialized).toBe(1);
    expect(lines).toHaveLength(1);
  });
});
