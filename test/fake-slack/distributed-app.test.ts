import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFakeSlack, type FakeSlack } from "../../support/fake-slack/create-fake-slack.ts";
import { DISTRIBUTED_PAGE } from "../../support/fake-slack/history-methods.ts";

/**
 * Slack's rule of May 2025 for apps distributed outside the Marketplace, as the fake holds
 * it (history-methods.ts and rate-tiers.ts quote the changelog and the methods' pages):
 * `conversations.history` and `conversations.replies` at 1 request a minute per workspace,
 * at most and by default 15 objects a call. Internal, customer-built apps keep Tier 3.
 */

const CHANNEL = "C0DISTRIB1";
const OTHER = "C0DISTRIB2";
const TEAM_B = "T0DISTRIBB";

let distributed: FakeSlack;
let internal: FakeSlack;
let clock: number;
/** The thread of 30 replies, in each fake. */
const parents = new Map<FakeSlack, string>();
beforeAll(async () => {
  distributed = await createFakeSlack({
    distributedApp: true,
    teams: [{ id: TEAM_B, installed: true }],
  });
  internal = await createFakeSlack();
  for (const fake of [distributed, internal]) {
    fake.addChannel({ id: CHANNEL, name: "history" });
    fake.addChannel({ id: OTHER, name: "other" });
  }
  distributed.team(TEAM_B).addChannel({ id: "C0DISTRIBB", name: "b" });
});
beforeEach(() => {
  clock = Date.now();
  for (const fake of [distributed, internal]) {
    fake.knobs.now = () => clock;
    // 40 messages, and a thread of 30 replies under the first.
    const first = fake.addMessage({ channel: CHANNEL, user: "U0FAKEUSER", text: "0" });
    const parent = first.ts;
    parents.set(fake, parent);
    for (let i = 1; i < 40; i++)
      fake.addMessage({ channel: CHANNEL, user: "U0FAKEUSER", text: `${i}` });
    for (let i = 0; i < 30; i++) {
      fake.addMessage({ channel: CHANNEL, user: "U0FAKEUSER", text: `r${i}`, thread_ts: parent });
    }
  }
});
afterEach(() => {
  distributed.reset();
  internal.reset();
});
afterAll(async () => {
  await distributed.close();
  await internal.close();
});

/** A bare POST with `token`, so nothing retries or waits behind the test's back. */
async function call(
  fake: FakeSlack,
  method: string,
  args: Record<string, unknown>,
  token?: string,
) {
  const res = await fetch(`${fake.apiUrl}${method}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token ?? fake.botToken}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(args),
  });
  const body = (await res.json()) as {
    ok: boolean;
    error?: string;
    messages?: unknown[];
    has_more?: boolean;
    response_metadata?: { next_cursor: string };
  };
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body };
}

describe("a distributed app outside the Marketplace", () => {
  const parent = () => parents.get(distributed);
  it("gets 15 objects a call from conversations.history, by default and when it asks for more", async () => {
    const asked = await call(distributed, "conversations.history", {
      channel: CHANNEL,
      limit: 100,
    });
    expect(asked.body.ok).toBe(true);
    expect(asked.body.messages).toHaveLength(DISTRIBUTED_PAGE);
    expect(asked.body.has_more).toBe(true);
    expect(asked.body.response_metadata?.next_cursor).not.toBe("");
    clock += 60_000;
    const plain = await call(distributed, "conversations.history", { channel: CHANNEL });
    expect(plain.body.messages).toHaveLength(DISTRIBUTED_PAGE);
    clock += 60_000;
    const fewer = await call(distributed, "conversations.history", { channel: CHANNEL, limit: 5 });
    expect(fewer.body.messages).toHaveLength(5);
  });

  it("gets 15 objects a call from conversations.replies, by default and when it asks for more", async () => {
    const asked = await call(distributed, "conversations.replies", {
      channel: CHANNEL,
      ts: parent(),
      limit: 200,
    });
    expect(asked.body.messages).toHaveLength(DISTRIBUTED_PAGE);
    expect(asked.body.has_more).toBe(true);
    clock += 60_000;
    const rest = await call(distributed, "conversations.replies", {
      channel: CHANNEL,
      ts: parent(),
      cursor: asked.body.response_metadata?.next_cursor,
    });
    expect(rest.body.messages).toHaveLength(DISTRIBUTED_PAGE);
  });

  it("answers 429 to a second call of either method in a minute, per method and per workspace", async () => {
    const history = () => call(distributed, "conversations.history", { channel: CHANNEL });
    const replies = () =>
      call(distributed, "conversations.replies", { channel: CHANNEL, ts: parent() });
    expect((await history()).status).toBe(200);
    const limited = await history();
    expect(limited).toMatchObject({ status: 429, body: { ok: false, error: "ratelimited" } });
    expect(Number(limited.retryAfter)).toBe(60);
    // The other method has its own minute, and so has another workspace.
    expect((await replies()).status).toBe(200);
    expect((await replies()).status).toBe(429);
    const other = distributed.team(TEAM_B).botToken;
    const elsewhere = await call(
      distributed,
      "conversations.history",
      { channel: "C0DISTRIBB" },
      other,
    );
    expect(elsewhere.status).toBe(200);
    // Another channel of the same workspace shares its minute.
    expect((await call(distributed, "conversations.history", { channel: OTHER })).status).toBe(429);
    clock += 60_000;
    expect((await history()).status).toBe(200);
    expect((await history()).status).toBe(429);
  });
});

describe("an internal, customer-built app", () => {
  const parent = () => parents.get(internal);
  it("keeps Tier 3 and Slack's default pages", async () => {
    for (let i = 0; i < 10; i++) {
      const page = await call(internal, "conversations.history", { channel: CHANNEL });
      expect(page.status).toBe(200);
      expect(page.body.messages).toHaveLength(40);
    }
    const thread = await call(internal, "conversations.replies", {
      channel: CHANNEL,
      ts: parent(),
    });
    expect(thread.body.messages).toHaveLength(31);
  });
});
