import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { DISTRIBUTED_PAGE, withPageLimit } from "../../../src/slack/rate-budget/history-rule.ts";
import { SlackBudget } from "../../../src/slack/rate-budget/slack-budget.ts";
import { apiMethodOf } from "../../../src/slack/rate-budget/slack-wire.ts";

/**
 * A distributed app outside the Marketplace reads `conversations.history` and
 * `conversations.replies` under Slack's rule: one request a minute per workspace, 15
 * objects a call (history-rule.ts). The budget holds it for people and the runner alike.
 */

const logger = pino({ level: "silent" });
const API = "https://slack.example/api/";

function fakeFetch() {
  const calls: { method: string; body: string; at: number }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({
      method: apiMethodOf(String(input)) ?? String(input),
      body: String(init?.body ?? ""),
      at: performance.now(),
    });
    return new Response(JSON.stringify({ ok: true, messages: [] }), { status: 200 });
  };
  return { fetch, calls };
}

const post = (body: Record<string, string>) => ({
  method: "POST",
  body: new URLSearchParams(body).toString(),
});

describe("the history rule of a distributed app", () => {
  it("asks for 15 objects at most, and 15 when the caller names no limit", () => {
    const limitOf = (init: RequestInit) => new URLSearchParams(String(init.body)).get("limit");
    const asked = (limit?: string) =>
      post({ channel: "C1", ...(limit === undefined ? {} : { limit }) });
    expect(limitOf(withPageLimit("conversations.history", "distributed", asked("100")))).toBe(
      String(DISTRIBUTED_PAGE),
    );
    expect(limitOf(withPageLimit("conversations.replies", "distributed", asked()))).toBe("15");
    expect(limitOf(withPageLimit("conversations.replies", "distributed", asked("1")))).toBe("1");
    // Other methods, and apps Slack does not ration, ask what they ask.
    expect(limitOf(withPageLimit("conversations.members", "distributed", asked("999")))).toBe(
      "999",
    );
    expect(limitOf(withPageLimit("conversations.history", "internal", asked("100")))).toBe("100");
    expect(limitOf(withPageLimit("conversations.history", "marketplace", asked()))).toBeNull();
  });

  it("lets a person's read through when the minute has one, and answers the next 429 without asking Slack", async () => {
    const { fetch, calls } = fakeFetch();
    const budget = new SlackBudget({ logger, fetch, distribution: "distributed" });
    let workspace = "T1";
    const person = budget.fetchFor("interactive", false, () => workspace);
    const read = (method: string) =>
      person(`${API}${method}`, post({ channel: "C1", limit: "100" }));
    expect((await read("conversations.history")).status).toBe(200);
    const refused = await read("conversations.history");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(50);
    expect(calls).toHaveLength(1);
    expect(new URLSearchParams(calls[0]?.body).get("limit")).toBe("15");
    // The other method has its minute, and so has another workspace.
    expect((await read("conversations.replies")).status).toBe(200);
    workspace = "T2";
    expect((await read("conversations.history")).status).toBe(200);
    expect(calls.map((c) => c.method)).toEqual([
      "conversations.history",
      "conversations.replies",
      "conversations.history",
    ]);
  });

  it("makes the runner wait for the minute's read, shared with people", async () => {
    const { fetch, calls } = fakeFetch();
    // The minute is 100 ms here: SLACK_RATE_SHARE scales Slack's allowance, 600 times.
    const budget = new SlackBudget({
      logger,
      fetch,
      distribution: "distributed",
      allowanceScale: 600,
    });
    const runner = budget.fetchFor("background");
    const person = budget.fetchFor("interactive");
    const args = () => post({ channel: "C1", ts: "1.1" });
    expect((await person(`${API}conversations.replies`, args())).status).toBe(200);
    const started = performance.now();
    await Promise.all([1, 2].map(() => runner(`${API}conversations.replies`, args())));
    expect(calls).toHaveLength(3);
    // Each waited its own tenth of a second behind the person's read.
    expect((calls[2]?.at ?? 0) - started).toBeGreaterThanOrEqual(150);
  });

  it("leaves an internal app's history reads to their tier, unpaced for people", async () => {
    const { fetch, calls } = fakeFetch();
    const budget = new SlackBudget({ logger, fetch, distribution: "internal" });
    const person = budget.fetchFor("interactive");
    for (let i = 0; i < 5; i++) {
      const answer = await person(
        `${API}conversations.history`,
        post({ channel: "C1", limit: "100" }),
      );
      expect(answer.status).toBe(200);
    }
    expect(calls).toHaveLength(5);
    expect(new URLSearchParams(calls[0]?.body).get("limit")).toBe("100");
  });
});
