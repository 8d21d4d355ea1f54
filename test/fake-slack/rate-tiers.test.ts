import { LogLevel, WebClient } from "@slack/web-api";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { API_METHODS } from "../../support/fake-slack/handle-api-request.ts";
import {
  METHOD_TIERS,
  POST_MESSAGE_BUDGETS,
  TIER_BUDGETS,
} from "../../support/fake-slack/rate-tiers.ts";
import { eventually } from "../../support/helpers/eventually.ts";

let fake: FakeSlack;
let clock: number;
beforeAll(async () => {
  fake = await createFakeSlack();
});
beforeEach(() => {
  clock = Date.now();
  fake.knobs.now = () => clock;
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

/** A bare POST, so nothing retries or waits behind the test's back. */
async function call(method: string, args: Record<string, unknown> = {}) {
  const res = await fetch(`${fake.apiUrl}${method}`, {
    method: "POST",
    headers: { authorization: `Bearer ${fake.botToken}`, "content-type": "application/json" },
    body: JSON.stringify(args),
  });
  const body = (await res.json()) as { ok: boolean; error?: string };
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body };
}

/** Until the fake has seen `n` calls of `method` arrive. */
const eventuallyCalled = (method: string, n: number) =>
  eventually(
    () => fake.callsTo(method).length,
    (seen) => seen >= n,
    { what: `${n} calls of ${method}` },
  );

const canvas = { title: "t", document_content: { type: "markdown", markdown: "x" } };

describe("rate tiers, per method and workspace", () => {
  it("knows the tier of every method it implements", () => {
    expect(Object.keys(API_METHODS).filter((m) => !(m in METHOD_TIERS))).toEqual([]);
  });

  it("answers 429 with Retry-After once a Tier 2 method's minute is spent, then refills", async () => {
    const { burst, perMinute } = TIER_BUDGETS.tier2;
    for (let i = 0; i < burst; i++)
      expect((await call("canvases.create", canvas)).status).toBe(200);
    const limited = await call("canvases.create", canvas);
    expect(limited).toMatchObject({ status: 429, body: { ok: false, error: "ratelimited" } });
    expect(Number(limited.retryAfter)).toBe(Math.ceil(60 / perMinute));
    // Another method of another tier is not affected.
    expect((await call("auth.test")).status).toBe(200);
    clock += (60_000 / perMinute) * 1.01;
    expect((await call("canvases.create", canvas)).status).toBe(200);
    expect((await call("canvases.create", canvas)).status).toBe(429);
  });

  it("lets chat.postMessage burst a minute's budget per channel, then about one a second", async () => {
    const post = (channel: string) => call("chat.postMessage", { channel, text: "x" });
    const { burst } = POST_MESSAGE_BUDGETS.perChannel;
    for (let i = 0; i < burst; i++) expect((await post("C0BUSY001")).status).toBe(200);
    expect(await post("C0BUSY001")).toMatchObject({ status: 429, retryAfter: "1" });
    expect((await post("C0CALM001")).status).toBe(200);
    clock += 1_000;
    expect((await post("C0BUSY001")).status).toBe(200);
    expect((await post("C0BUSY001")).status).toBe(429);
  });

  it("records every call made inside a Retry-After window it announced", async () => {
    fake.knobs.rateScale = 0.05; // Tier 3: a burst of 2.5, refilled 2.5 a minute
    expect((await call("chat.update", { channel: "C0X", ts: "1.1", text: "a" })).body.error).toBe(
      "message_not_found",
    );
    await call("chat.update", { channel: "C0X", ts: "1.1", text: "b" });
    const limited = await call("chat.update", { channel: "C0X", ts: "1.1", text: "c" });
    expect(limited.status).toBe(429);
    expect(fake.violations).toEqual([]);
    clock += 1_000;
    await call("chat.update", { channel: "C0X", ts: "1.1", text: "d" });
    expect(fake.violations).toMatchObject([{ rule: "retry_after", method: "chat.update" }]);
    clock += Number(limited.retryAfter) * 1000;
    await call("chat.update", { channel: "C0X", ts: "1.1", text: "e" });
    expect(fake.violations).toHaveLength(1);
  });

  it("keeps the rateLimit knob, and its Retry-After window counts too", async () => {
    fake.knobs.rateLimit = { method: "users.info", count: 1, retryAfter: 2 };
    expect((await call("users.info", { user: "U0NOBODY" })).status).toBe(429);
    clock += 1_999;
    expect((await call("users.info", { user: "U0NOBODY" })).body.error).toBe("user_not_found");
    expect(fake.violations.map((v) => v.method)).toEqual(["users.info"]);
  });

  it("does not count a call already on its way when the 429 was written", async () => {
    fake.knobs.rateLimit = { method: "users.info", count: 1, retryAfter: 1 };
    // The 429 is decided but held before it is written; another call arrives meanwhile.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.knobs.hold = (c, phase) =>
      phase === "answered" && c.status === 200 && fake.callsTo("users.info").length === 1
        ? held
        : undefined;
    const limited = call("users.info", { user: "U0NOBODY" });
    await eventuallyCalled("users.info", 1);
    const inFlight = call("users.info", { user: "U0NOBODY" });
    await eventuallyCalled("users.info", 2);
    clock += 10;
    release();
    expect((await limited).status).toBe(429);
    expect((await inFlight).status).toBe(200);
    expect(fake.violations).toEqual([]);
    // Once written, a call inside its second is one.
    clock += 10;
    await call("users.info", { user: "U0NOBODY" });
    expect(fake.violations.map((v) => v.method)).toEqual(["users.info"]);
  });

  it("scales every tier with rateScale (Infinity lifts them)", async () => {
    fake.knobs.rateScale = 0.1;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call("canvases.create", canvas)).status);
    expect(statuses).toEqual([200, 200, 429]);
    fake.knobs.rateScale = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 30; i++) expect((await call("canvases.create", canvas)).status).toBe(200);
  });

  it("is honoured by the WebClient: it waits Retry-After, so no call lands inside the window", async () => {
    fake.knobs.now = undefined;
    fake.knobs.rateLimit = { method: "auth.test", count: 1, retryAfter: 1 };
    const client = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 1, minTimeout: 0 },
      logLevel: LogLevel.ERROR,
    });
    await expect(client.auth.test()).resolves.toMatchObject({ ok: true });
    expect(fake.callsTo("auth.test").map((c) => c.status)).toEqual([429, 200]);
    expect(fake.violations).toEqual([]);
  });
});

describe("latency", () => {
  it("waits before answering, per method or as a function says", async () => {
    fake.knobs.now = undefined;
    fake.knobs.latencyMs = { "auth.test": 250 };
    let started = Date.now();
    await call("auth.test");
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    started = Date.now();
    await call("users.info", { user: "U0NOBODY" });
    expect(Date.now() - started).toBeLessThan(240);
    fake.knobs.latencyMs = (method) => (method === "users.info" ? 250 : 0);
    started = Date.now();
    await call("users.info", { user: "U0NOBODY" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });
});
