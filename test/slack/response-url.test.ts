import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResponder } from "../../src/slack/responder/response-url.ts";

interface Received {
  method: string | undefined;
  type: string | undefined;
  body: unknown;
}

let server: Server;
let origin: string;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    received.push({
      method: req.method,
      type: req.headers["content-type"],
      body: JSON.parse(raw),
    });
    if (req.url?.startsWith("/expired")) {
      res.writeHead(404).end("expired_url");
      return;
    }
    res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: "debug" },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

describe("createResponder", () => {
  it("posts the content as an ephemeral JSON message", async () => {
    const { logger, lines } = capture();
    const respond = createResponder({ logger });
    await respond(`${origin}/commands/T1/1/abc`, { text: "hello", blocks: [] });
    expect(received.at(-1)).toEqual({
      method: "POST",
      type: "application/json; charset=utf-8",
      body: { response_type: "ephemeral", text: "hello", blocks: [] },
    });
    expect(lines).toEqual([]);
  });

  it("logs a refusal with Slack's short answer and never the URL", async () => {
    const { logger, lines } = capture();
    const url = `${origin}/expired/T1/1/secret-part`;
    await createResponder({ logger })(url, { text: "late", blocks: [] });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 404, text: "expired_url" });
    expect(JSON.stringify(lines)).not.toContain("secret-part");
  });

  it("resolves, logging, when nothing answers at the URL", async () => {
    const { logger, lines } = capture();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      createResponder({ logger })(`http://127.0.0.1:${port}/x`, { text: "nobody", blocks: [] }),
    ).resolves.toBeUndefined();
    expect(lines[0]?.msg).toBe("could not post to response_url");
  });
});
