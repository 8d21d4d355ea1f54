import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpSurface, type HttpSurface, type Route } from "../../src/http/http-surface.ts";
import { readBody } from "../../src/http/read-body.ts";
import { eventually } from "../../support/helpers/eventually.ts";
import { type RawAnswer, rawRequest } from "../../support/helpers/raw-http.ts";

const logs: string[] = [];
const logger = pino(
  { level: "debug" },
  new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  }),
);

/** Requests `/hangs` has taken (and never answers). */
let hangingRequests = 0;
const routes: Route[] = [
  { path: "/healthz", methods: ["GET"], handle: (_req, res) => void res.end("ok") },
  {
    path: "/echo",
    methods: ["POST"],
    readsBody: true,
    handle: async (req, res) => {
      const read = await readBody(req, 1024);
      res.end("body" in read ? `got ${read.body.length}` : read.refused);
    },
  },
  {
    path: "/throws",
    methods: ["GET"],
    handle: () => {
      throw new Error("handler blew up");
    },
  },
  { path: "/rejects", methods: ["GET"], handle: () => Promise.reject(new Error("async blew up")) },
  // Answers only when told to: a request in flight during close().
  {
    path: "/hangs",
    methods: ["GET"],
    handle: () => {
      hangingRequests += 1;
    },
  },
];

// Short limits, so the timeout tests take a fraction of a second.
const timeouts = {
  headersMs: 300,
  requestMs: 600,
  keepAliveMs: 200,
  checkEveryMs: 50,
  closeGraceMs: 200,
};

let surface: HttpSurface;
let port: number;
const opened: RawAnswer[] = [];
beforeAll(async () => {
  surface = createHttpSurface({ routes, logger, timeouts });
  port = await surface.listen(0);
});
afterAll(async () => {
  for (const answer of opened) answer.socket.destroy();
  await surface.close();
});

async function raw(request: string, options: Parameters<typeof rawRequest>[2] = {}) {
  const answer = await rawRequest(port, request, options);
  opened.push(answer);
  return answer;
}

const get = (target: string, method = "GET") =>
  raw(`${method} ${target} HTTP/1.1\r\nHost: bot\r\nConnection: close\r\n\r\n`);

describe("createHttpSurface", () => {
  it("serves a route with GET and HEAD, and says which methods it allows otherwise", async () => {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz?probe=1`);
    expect([ok.status, await ok.text()]).toEqual([200, "ok"]);
    const head = await fetch(`http://127.0.0.1:${port}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]) {
      const answer = await get("/healthz", method);
      expect(answer.status, method).toBe(405);
      expect(answer.head).toMatch(/\r\nallow: GET, HEAD\r\n/i);
    }
    const echo = await get("/echo", "GET");
    expect(echo.status).toBe(405);
    expect(echo.head).toMatch(/\r\nallow: POST\r\n/i);
  });

  it("answers 404 to every other target, however odd, without decoding it", async () => {
    const targets = [
      "/",
      "//",
      "/%ZZ",
      "/healthz/",
      "/HEALTHZ",
      "/healthz%00",
      "http://bot/healthz",
      `/${"a".repeat(10_000)}`,
    ];
    for (const target of targets) {
      expect((await get(target)).status, target.slice(0, 40)).toBe(404);
    }
  });

  it("answers 501 to a method Node does not know, and closes the connection", async () => {
    const answer = await get("/healthz", "BREW");
    expect(answer.status).toBe(501);
    expect(await answer.closedWithin(500)).toBe(true);
  });

  it("turns a handler's throw or rejection into a 500 and a log line", async () => {
    const before = logs.length;
    expect((await get("/throws")).status).toBe(500);
    expect((await get("/rejects")).status).toBe(500);
    const failures = logs.slice(before).filter((line) => line.includes('"HTTP request failed"'));
    expect(failures.join("\n")).toMatch(/handler blew up/);
    expect(failures.join("\n")).toMatch(/async blew up/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("ends the connection with the answer when a body nobody reads was sent", async () => {
    const answer = await raw(
      "PUT /healthz HTTP/1.1\r\nHost: bot\r\nContent-Length: 5000000\r\n\r\npartial",
    );
    expect(answer.status).toBe(405);
    expect(await answer.closedWithin(500)).toBe(true);
  });

  it("cuts a request whose headers trickle in, after the headers timeout, with 408", async () => {
    const answer = await raw("GET /healthz HTTP/1.1\r\nHost: bot\r\n", {
      trickle: { chunk: "X-Slow: 1\r\n", everyMs: 40 },
    });
    expect(answer.status).toBe(408);
    expect(answer.ms).toBeGreaterThanOrEqual(timeouts.headersMs - 20);
    expect(answer.ms).toBeLessThan(timeouts.requestMs);
    expect(await answer.closedWithin(200)).toBe(true);
  });

  it("cuts a body that trickles in, after the request timeout, while serving others", async () => {
    let cut = false;
    const slow = raw("POST /echo HTTP/1.1\r\nHost: bot\r\nContent-Length: 1000\r\n\r\n", {
      trickle: { chunk: "a", everyMs: 40 },
    }).finally(() => {
      cut = true;
    });
    // Served while the trickle still holds its connection: answered before it is cut.
    const others = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        return { status: res.status, beforeTheCut: !cut };
      }),
    );
    expect(others).toEqual(Array(5).fill({ status: 200, beforeTheCut: true }));
    const answer = await slow;
    expect(answer.status).toBe(408);
    expect(answer.ms).toBeGreaterThanOrEqual(timeouts.requestMs - 20);
    expect(answer.ms).toBeLessThan(timeouts.requestMs + 400);
  });

  it("closes a connection that sends nothing, after the headers timeout", async () => {
    const idle = await raw("", { giveUpMs: 2_000 });
    expect(idle.status).toBe(408);
    expect(idle.ms).toBeGreaterThanOrEqual(timeouts.headersMs - 20);
    expect(idle.ms).toBeLessThan(timeouts.headersMs + 400);
    expect(await idle.closedWithin(200)).toBe(true);
  });
});

describe("closing the surface", () => {
  it("stops taking connections and cuts a request still in flight after the grace period", async () => {
    const own = createHttpSurface({ routes, logger, timeouts });
    const ownPort = await own.listen(0);
    const before = hangingRequests;
    const hanging = rawRequest(ownPort, "GET /hangs HTTP/1.1\r\nHost: bot\r\n\r\n");
    await eventually(
      () => hangingRequests,
      (n) => n > before,
      { what: "the request in flight" },
    );
    const started = performance.now();
    await own.close();
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(timeouts.closeGraceMs - 20);
    expect(ms).toBeLessThan(timeouts.closeGraceMs + 500);
    expect((await hanging).status).toBeUndefined();
    await expect(fetch(`http://127.0.0.1:${ownPort}/healthz`)).rejects.toThrow();
  });
});
