import type { IncomingMessage, RequestListener } from "node:http";
import { Writable } from "node:stream";
import { pino } from "pino";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpSurface, type HttpSurface } from "../../src/http/http-surface.ts";
import {
  type GuardOptions,
  guardRequests,
  MAX_BODY_BYTES,
} from "../../src/slack/requests/guard-requests.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { signSlackRequest } from "../../support/fake-slack/slack-request.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { type RawAnswer, rawRequest } from "../../support/helpers/raw-http.ts";

const SECRET = "guard-test-secret";
const nowSeconds = () => Math.floor(Date.now() / 1000);

const logs: string[] = [];
const logger = pino(
  { level: "info" },
  new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  }),
);

/** Stands in for Bolt's listener: records the body it was handed. */
const reached: string[] = [];
const bolt: RequestListener = (req, res) => {
  const raw = (req as IncomingMessage & { rawBody?: Buffer }).rawBody;
  reached.push(raw?.toString("utf8") ?? "(none)");
  res.writeHead(200).end("bolt");
};

let store: Store;
const surfaces: HttpSurface[] = [];
const sockets: RawAnswer[] = [];

/** A server with the guard at /slack/events; the options replace the defaults. */
async function serve(options: Partial<GuardOptions> = {}): Promise<number> {
  const guarded = guardRequests(bolt, {
    signingSecret: SECRET,
    claimSignature: (signature, ttlMs) => store.claimBriefly(signature, ttlMs),
    logger,
    ...options,
  });
  const surface = createHttpSurface({
    routes: [{ path: "/slack/events", methods: ["POST"], readsBody: true, handle: guarded }],
    logger,
  });
  surfaces.push(surface);
  return surface.listen(0);
}

let port: number;
beforeAll(async () => {
  store = await openStore("memory://");
  port = await serve();
});
afterAll(async () => {
  for (const answer of sockets) answer.socket.destroy();
  await Promise.all(surfaces.map((s) => s.close()));
  await store.close();
});

async function post(body: string | Buffer, options: { type?: string; timestamp?: number } = {}) {
  const text = typeof body === "string" ? body : body.toString("utf8");
  const headers = {
    "content-type": options.type ?? "application/json",
    ...signSlackRequest(SECRET, text, options.timestamp),
  };
  const response = await request(`http://127.0.0.1:${port}/slack/events`, {
    method: "POST",
    headers,
    body,
  });
  return { status: response.statusCode, text: await response.body.text() };
}

/** Headers only (the body never comes): what the guard decides before reading a byte. */
async function headersOnly(headers: Record<string, string>, target = port, giveUpMs = 3_000) {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  const answer = await rawRequest(
    target,
    `POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n${lines.join("")}\r\n`,
    { giveUpMs },
  );
  sockets.push(answer);
  return answer;
}

const signatureOf = (timestamp: number, body = "{}") =>
  signSlackRequest(SECRET, body, timestamp)["x-slack-signature"];

describe("guardRequests", () => {
  it("hands a signed body to Bolt as rawBody, read once", async () => {
    const event = JSON.stringify({ type: "event_callback", event: { type: "message" } });
    expect(await post(event)).toEqual({ status: 200, text: "bolt" });
    expect(reached.at(-1)).toBe(event);
    const form = "command=%2Fmeeting-notes&text=help";
    expect(await post(form, { type: "application/x-www-form-urlencoded" })).toEqual({
      status: 200,
      text: "bolt",
    });
    expect(reached.at(-1)).toBe(form);
  });

  it("refuses missing or malformed signing headers with 401 before reading the body", async () => {
    const ts = String(nowSeconds());
    const good = signatureOf(nowSeconds());
    const cases: Record<string, string>[] = [
      {},
      { "x-slack-request-timestamp": ts },
      { "x-slack-signature": good },
      { "x-slack-signature": good.replace("v0=", "v1="), "x-slack-request-timestamp": ts },
      { "x-slack-signature": good.slice(0, -1), "x-slack-request-timestamp": ts },
      { "x-slack-signature": `${good.slice(0, -1)}g`, "x-slack-request-timestamp": ts },
      { "x-slack-signature": good, "x-slack-request-timestamp": `${ts}.5` },
      { "x-slack-signature": good, "x-slack-request-timestamp": "-1" },
      { "x-slack-signature": good, "x-slack-request-timestamp": "" },
    ];
    const before = reached.length;
    for (const headers of cases) {
      // A body of 100 kB is announced and never sent: only an answer that did not wait
      // for it can come back.
      const answer = await headersOnly({ ...headers, "content-length": "100000" });
      expect(answer.status, JSON.stringify(headers)).toBe(401);
      expect(await answer.closedWithin(500)).toBe(true);
    }
    expect(reached.length).toBe(before);
  });

  it("refuses a timestamp more than 5 minutes off, either way, before reading the body", async () => {
    for (const offset of [-600, -301, 301, 600]) {
      const ts = nowSeconds() + offset;
      const answer = await headersOnly({
        "x-slack-signature": signatureOf(ts),
        "x-slack-request-timestamp": String(ts),
        "content-length": "100000",
      });
      expect(answer.status, `offset ${offset} s`).toBe(401);
    }
    for (const offset of [-240, 240]) {
      const body = JSON.stringify({ type: "event_callback", offset });
      expect((await post(body, { timestamp: nowSeconds() + offset })).status).toBe(200);
    }
  });

  it("answers 413 at once to a Content-Length over 1 MiB, and closes the connection", async () => {
    const ts = nowSeconds();
    const answer = await headersOnly({
      "x-slack-signature": signatureOf(ts),
      "x-slack-request-timestamp": String(ts),
      "content-length": String(5 * 1024 * 1024),
    });
    expect(answer.status).toBe(413);
    expect(await answer.closedWithin(500)).toBe(true);
  });

  it("counts a chunked body as it comes and cuts it at 1 MiB with 413", async () => {
    const ts = nowSeconds();
    const chunk = Buffer.alloc(64 * 1024, "a");
    const framed = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from("\r\n"),
    ]);
    const head = [
      "POST /slack/events HTTP/1.1",
      "Host: bot",
      "Content-Type: application/json",
      "Transfer-Encoding: chunked",
      `x-slack-signature: ${signatureOf(ts)}`,
      `x-slack-request-timestamp: ${ts}`,
    ].join("\r\n");
    const before = reached.length;
    // 17 chunks of 64 kB make just over 1 MiB; more keep coming until the answer.
    const answer = await rawRequest(port, Buffer.concat([Buffer.from(`${head}\r\n\r\n`), framed]), {
      trickle: { chunk: framed, everyMs: 1 },
    });
    sockets.push(answer);
    expect(answer.status).toBe(413);
    // Cut as soon as the count passes 1 MiB, not whenever the sender stops.
    expect(answer.ms).toBeLessThan(1_000);
    expect(await answer.closedWithin(500)).toBe(true);
    expect(reached.length).toBe(before);
  });

  it("takes a body of exactly 1 MiB", async () => {
    const body = JSON.stringify({ type: "event_callback", pad: "x".repeat(MAX_BODY_BYTES - 40) });
    const exact = body + " ".repeat(MAX_BODY_BYTES - Buffer.byteLength(body));
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY_BYTES);
    expect((await post(exact)).status).toBe(200);
  });

  it("refuses a body whose HMAC does not match with 401", async () => {
    const before = reached.length;
    const body = '{"type":"event_callback"}';
    const forged = await request(`http://127.0.0.1:${port}/slack/events`, {
      method: "POST",
      headers: { "content-type": "application/json", ...signSlackRequest("another-secret", body) },
      body,
    });
    expect(forged.statusCode).toBe(401);
    const signed = signSlackRequest(SECRET, body);
    const tampered = await request(`http://127.0.0.1:${port}/slack/events`, {
      method: "POST",
      headers: { "content-type": "application/json", ...signed },
      body: body.replace("event_callback", "url_verification"),
    });
    expect(tampered.statusCode).toBe(401);
    expect(reached.length).toBe(before);
  });

  it("refuses a replayed request, and takes Slack's re-signed retry of it", async () => {
    const body = JSON.stringify({ type: "event_callback", event_id: "Ev0REPLAY" });
    const ts = nowSeconds();
    const before = reached.length;
    expect((await post(body, { timestamp: ts })).status).toBe(200);
    expect((await post(body, { timestamp: ts })).status).toBe(401);
    expect(reached.length).toBe(before + 1);
    expect(logs.join("\n")).toMatch(/replay/);
    // Slack signs each retry afresh (a new timestamp); dedupe by event id is the app's job.
    expect((await post(body, { timestamp: ts + 1 })).status).toBe(200);
    expect(reached.length).toBe(before + 2);
  });

  it("answers a signed body that is not an object with 400 instead of passing it on", async () => {
    const before = reached.length;
    for (const body of ["null", " 42", '"text"']) expect((await post(body)).status).toBe(400);
    const form = { type: "application/x-www-form-urlencoded" };
    expect((await post("payload=null", form)).status).toBe(400);
    expect(reached.length).toBe(before);
  });

  it("turns bodies away with 503 while others hold the reading budget", async () => {
    const budgetPort = await serve({ maxBufferedBytes: MAX_BODY_BYTES + 1000 });
    const ts = nowSeconds();
    const big = {
      "x-slack-signature": signatureOf(ts),
      "x-slack-request-timestamp": String(ts),
      "content-length": String(MAX_BODY_BYTES),
    };
    // Announces 1 MiB and sends none of it: it holds the budget while it lasts.
    const holder = await headersOnly(big, budgetPort, 100);
    expect(holder.status).toBeUndefined();
    const turnedAway = await headersOnly({ ...big, "content-length": "2000" }, budgetPort);
    expect(turnedAway.status).toBe(503);
    holder.socket.destroy();
    // The server learns of the close a moment later and gives the budget back.
    const body = '{"type":"event_callback","budget":true}';
    const res = await eventually(
      async () => {
        const answer = await request(`http://127.0.0.1:${budgetPort}/slack/events`, {
          method: "POST",
          headers: { "content-type": "application/json", ...signSlackRequest(SECRET, body) },
          body,
        });
        if (answer.statusCode === 503) await answer.body.dump();
        return answer;
      },
      (answer) => answer.statusCode !== 503,
    );
    expect(res.statusCode).toBe(200);
  });

  it("answers 500 and logs when the replay memory cannot be reached", async () => {
    const failing = await serve({
      claimSignature: () => Promise.reject(new Error("Redis SET NX failed: offline")),
    });
    const body = '{"type":"event_callback"}';
    const res = await request(`http://127.0.0.1:${failing}/slack/events`, {
      method: "POST",
      headers: { "content-type": "application/json", ...signSlackRequest(SECRET, body) },
      body,
    });
    expect(res.statusCode).toBe(500);
    expect(logs.join("\n")).toMatch(/could not be checked.*offline|offline.*could not be checked/s);
  });
});
