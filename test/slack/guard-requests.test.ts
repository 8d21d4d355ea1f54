import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardRequests } from "../../src/slack/guard-requests.ts";
import { signSlackRequest } from "../fakes/slack/slack-request.ts";

const SECRET = "guard-test-secret";
let server: Server;
let url: string;
const reached: string[] = [];

beforeAll(async () => {
  // Stands in for Bolt's listener: says what body it was handed.
  const listener: RequestListener = (req, res) => {
    const raw = (req as IncomingMessage & { rawBody?: Buffer }).rawBody;
    reached.push(raw?.toString("utf8") ?? "");
    res.writeHead(200).end("bolt");
  };
  server = createServer(guardRequests(listener, SECRET));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function post(body: string | Buffer, type: string, signed = true) {
  const text = typeof body === "string" ? body : body.toString("utf8");
  const headers: Record<string, string> = { "content-type": type };
  if (signed) Object.assign(headers, signSlackRequest(SECRET, text));
  const response = await request(url, { method: "POST", headers, body });
  return { status: response.statusCode, text: await response.body.text() };
}

describe("guardRequests", () => {
  it("hands ordinary bodies to Bolt as rawBody, read once", async () => {
    const event = JSON.stringify({ type: "event_callback", event: { type: "message" } });
    expect(await post(event, "application/json")).toEqual({ status: 200, text: "bolt" });
    expect(reached.at(-1)).toBe(event);
    expect(
      await post("command=%2Fmeeting-notes&text=help", "application/x-www-form-urlencoded"),
    ).toEqual({ status: 200, text: "bolt" });
  });

  it("answers a signed body that is not an object with 400 instead of passing it on", async () => {
    const before = reached.length;
    for (const body of ["null", " 42", '"text"']) {
      expect((await post(body, "application/json")).status).toBe(400);
    }
    expect((await post("payload=null", "application/x-www-form-urlencoded")).status).toBe(400);
    expect(reached.length).toBe(before);
    // Unsigned, Bolt judges it (and refuses the signature).
    expect((await post("null", "application/json", false)).status).toBe(200);
  });

  it("answers 413 once, for a body over 4 MiB sent in many chunks, and keeps serving", async () => {
    const before = reached.length;
    const big = Buffer.alloc(5 * 1024 * 1024, "a");
    const answer = await post(big, "application/json", false).then(
      (reply) => reply.status,
      () => "reset",
    );
    // The server may cut the upload short once it has answered: 413, or a reset.
    expect([413, "reset"]).toContain(answer);
    expect(reached.length).toBe(before);
    expect(await post("{}", "application/json")).toEqual({ status: 200, text: "bolt" });
  });
});
