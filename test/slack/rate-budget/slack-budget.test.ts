import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { SlackBudget } from "../../../src/slack/rate-budget/slack-budget.ts";
import { apiMethodOf } from "../../../src/slack/rate-budget/slack-wire.ts";
import { TokenBucket } from "../../../src/slack/rate-budget/token-bucket.ts";

const logger = pino({ level: "silent" });
const API = "https://slack.example/api/";

/** A `fetch` that answers as `answer` says and remembers when each call came. */
function fakeFetch(answer: (method: string, n: number) => Response | Promise<Response>) {
  const calls: { method: string; at: number; body: string }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const method = apiMethodOf(String(input)) ?? String(input);
    calls.push({ method, at: Date.now(), body: String(init?.body ?? "") });
    return answer(method, calls.filter((c) => c.method === method).length);
  };
  return { fetch, calls };
}

const ok = () => new Response(JSON.stringify({ ok: true }), { status: 200 });
const limited = (seconds: number) =>
  new Response(JSON.stringify({ ok: false, error: "ratelimited" }), {
    status: 429,
    headers: { "retry-after": String(seconds) },
  });
const post = (body: Record<string, string>) => ({
  method: "POST",
  body: new URLSearchParams(body).toString(),
});

describe("TokenBucket", () => {
  it("lets a burst through at once, then one per refill, in the order asked", async () => {
    const bucket = new TokenBucket({ perMinute: 600, burst: 2 }); // one every 100 ms
    const started = Date.now();
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((n) => bucket.take().then(() => order.push(n))));
    expect(order).toEqual([0, 1, 2, 3]);
    // Two at once, then two more 100 ms apart.
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
  });

  it("serves an urgent taker before the ordinary ones already waiting", async () => {
    const bucket = new TokenBucket({ perMinute: 1200, burst: 1 }); // one every 50 ms
    await bucket.take();
    const order: string[] = [];
    const ordinary = ["a", "b"].map((n) => bucket.take().then(() => order.push(n)));
    const urgent = bucket.take(undefined, true).then(() => order.push("urgent"));
    await Promise.all([...ordinary, urgent]);
    expect(order).toEqual(["urgent", "a", "b"]);
  });

  it("stops waiting when its signal aborts", async () => {
    const bucket = new TokenBucket({ perMinute: 1, burst: 1 });
    await bucket.take();
    const controller = new AbortController();
    const waiting = bucket.take(controller.signal);
    controller.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
  });
});

describe("SlackBudget", () => {
  it("knows the method of a Web API URL, and that an upload URL is none", () => {
    expect(apiMethodOf(`${API}chat.postMessage`)).toBe("chat.postMessage");
    expect(apiMethodOf("https://files.slack.com/upload/v1/ABC")).toBeUndefined();
  });

  it("paces background calls of a method to its tier, and never interactive ones", async () => {
    const { fetch, calls } = fakeFetch(() => ok());
    // Tier 3 is 50 a minute, a burst of 5; ×0.8 for the background and its rate ×12:
    // 8 a second, a burst of 4.
    const budget = new SlackBudget({ logger, fetch, allowanceScale: 12, backgroundShare: 0.8 });
    const background = budget.fetchFor("background");
    const interactive = budget.fetchFor("interactive");
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 8 }, () => background(`${API}chat.update`, post({ channel: "C1" }))),
    );
    const backgroundMs = Date.now() - started;
    const before = Date.now();
    await Promise.all(
      Array.from({ length: 8 }, () => interactive(`${API}chat.update`, post({ channel: "C1" }))),
    );
    expect(calls).toHaveLength(16);
    // The burst of 4, then 4 more at 125 ms each.
    expect(backgroundMs).toBeGreaterThanOrEqual(450);
    // Not paced behind the background's calls (that took them ≥ 450 ms).
    expect(Date.now() - before).toBeLessThan(backgroundMs / 2);
  });

  it("answers an interactive call inside Slack's Retry-After itself, asking Slack nothing", async () => {
    const { fetch, calls } = fakeFetch((method, n) =>
      method === "users.info" && n === 1 ? limited(30) : ok(),
    );
    const budget = new SlackBudget({ logger, fetch });
    const call = budget.fetchFor("interactive");
    expect((await call(`${API}users.info`, post({ user: "U1" }))).status).toBe(429);
    const again = await call(`${API}users.info`, post({ user: "U1" }));
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(28);
    expect(calls).toHaveLength(1);
    // Another method is not held back.
    expect((await call(`${API}files.info`, post({ file: "F1" }))).status).toBe(200);
    expect(calls).toHaveLength(2);
    expect(budget.rateLimited).toBe(1);
  });

  it("keeps Slack's limits per workspace: one workspace's calls and 429s do not hold back another's", async () => {
    const { fetch, calls } = fakeFetch((method, n) =>
      method === "users.info" && n === 1 ? limited(30) : ok(),
    );
    // Tier 3 at its own rate: 40 a minute for the background, a burst of 4.
    const budget = new SlackBudget({ logger, fetch, backgroundShare: 0.8 });
    let asked = "T0ALPHA";
    const interactive = budget.fetchFor("interactive", false, () => asked);
    const alpha = budget.fetchFor("background", false, () => "T0ALPHA");
    const beta = budget.fetchFor("background", false, () => "T0BETA");
    // Alpha spends its burst of chat.update; Beta's burst is its own, sent at once.
    const burst = (send: typeof alpha) =>
      Promise.all(Array.from({ length: 4 }, () => send(`${API}chat.update`, post({}))));
    await burst(alpha);
    const started = Date.now();
    await burst(beta);
    expect(Date.now() - started).toBeLessThan(500);
    // Alpha's next one waits for its refill (1.5 s at 40 a minute): aborted to show it waits.
    const waited = await alpha(`${API}chat.update`, {
      ...post({}),
      signal: AbortSignal.timeout(200),
    }).catch((error: unknown) => error);
    expect(waited).toBeInstanceOf(Error);
    // A Retry-After Slack gave Alpha closes that method for Alpha, the runner included, not for Beta.
    expect((await interactive(`${API}users.info`, post({}))).status).toBe(429);
    expect((await interactive(`${API}users.info`, post({}))).status).toBe(429);
    const alphaUsers = await alpha(`${API}users.info`, {
      ...post({}),
      signal: AbortSignal.timeout(200),
    }).catch((error: unknown) => error);
    expect(alphaUsers).toBeInstanceOf(Error);
    asked = "T0BETA";
    expect((await interactive(`${API}users.info`, post({}))).status).toBe(200);
    expect((await beta(`${API}users.info`, post({}))).status).toBe(200);
    expect(calls.filter((c) => c.method === "users.info")).toHaveLength(3);
  });

  it("waits out a Retry-After in the background and sends again, never inside it", async () => {
    const { fetch, calls } = fakeFetch((_method, n) => (n === 1 ? limited(1) : ok()));
    const budget = new SlackBudget({ logger, fetch });
    const call = budget.fetchFor("background");
    const [first, second] = await Promise.all([
      call(`${API}chat.update`, post({ channel: "C1" })),
      call(`${API}chat.update`, post({ channel: "C2" })),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const [limitedAt, ...after] = calls.map((c) => c.at);
    expect(after).toHaveLength(2);
    for (const at of after) expect(at - (limitedAt ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it("keeps one call of a method in flight, so none is sent before a 429 already on its way", async () => {
    const answered: number[] = [];
    const { fetch, calls } = fakeFetch(async (_method, n) => {
      // The first answer takes a while to come back, and it is a 429.
      if (n === 1) await new Promise((resolve) => setTimeout(resolve, 50));
      answered.push(Date.now());
      return n === 1 ? limited(1) : ok();
    });
    const budget = new SlackBudget({ logger, fetch, backgroundShare: 1, allowanceScale: 100 });
    const call = budget.fetchFor("background");
    const answers = await Promise.all(
      ["C1", "C2", "C3"].map((channel) => call(`${API}chat.update`, post({ channel }))),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const [limitedAnsweredAt = 0] = answered;
    for (const later of calls.slice(1))
      expect(later.at - limitedAnsweredAt).toBeGreaterThanOrEqual(990);
  });

  it("gives a Retry-After longer than it waits out back to the caller", async () => {
    const { fetch, calls } = fakeFetch(() => limited(120));
    const budget = new SlackBudget({ logger, fetch, maxRetryWaitMs: 60_000 });
    const answer = await budget.fetchFor("background")(`${API}canvases.create`, post({}));
    expect(answer.status).toBe(429);
    expect(calls).toHaveLength(1);
  });

  it("posts about one message a second per channel, channels side by side", async () => {
    const { fetch, calls } = fakeFetch(() => ok());
    const budget = new SlackBudget({ logger, fetch, backgroundShare: 1 });
    const call = budget.fetchFor("background");
    const send = (channel: string) =>
      call(`${API}chat.postMessage`, post({ channel, text: "hello" }));
    const started = Date.now();
    // Three each: the burst of a channel, at once; two channels do not wait for each other.
    await Promise.all(["C1", "C1", "C1", "C2", "C2", "C2"].map(send));
    // Well before the next second's post (had C2 waited behind C1, a second or more).
    expect(Date.now() - started).toBeLessThan(500);
    await send("C1");
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(calls).toHaveLength(7);
  });

  it("times a request out from when it is sent, not from when it waited for budget", async () => {
    const never = () => new Promise<Response>(() => {});
    const budget = new SlackBudget({
      logger,
      fetch: (_input, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
          void never();
        }),
      timeoutMs: { interactive: 50, background: 80 },
    });
    await expect(budget.fetchFor("interactive")(`${API}users.info`, post({}))).rejects.toThrow();
    const started = Date.now();
    await expect(budget.fetchFor("background")(`${API}users.info`, post({}))).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
  });
});
