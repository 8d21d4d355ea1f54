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
    const logger = createLogger({ level: "info", secrets: [secret, "short"], destination });
    logger.info(
      { config: { slack: { botToken: secret } }, headers: { "x-api-key": "k-123456789" } },
      "boot",
    );
    logger.error({ err: new Error(`request failed for ${secret}`) }, "oops");
    logger.info("short words stay");
    const text = lines.join("");
    expect(text).not.toContain(secret);
    expect(text).not.toContain("k-123456789");
    expect(text).toContain("[redacted]");
    expect(text).toContain("short words stay");
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
