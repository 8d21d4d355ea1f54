import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { inCallScope } from "../../../src/slack/rate-budget/call-scope.ts";
import { SlackBudget } from "../../../src/slack/rate-budget/slack-budget.ts";

const logger = pino({ level: "silent" });
const API = "https://slack.example/api/";
const update = () => ({ method: "POST", body: new URLSearchParams({ channel: "C1" }).toString() });

/** A budget whose chat.update tier lets one background call through a minute. */
function starved(answer: () => Response = () => new Response('{"ok":true}')) {
  const sent: number[] = [];
  const budget = new SlackBudget({
    logger,
    allowanceScale: 1 / 50,
    resend: { tries: 3, baseDelayMs: 5 },
    fetch: async () => {
      sent.push(Date.now());
      return answer();
    },
  });
  return { budget, sent, background: budget.fetchFor("background", true) };
}

describe("a call's scope", () => {
  it("sends what a person is looking at without waiting for the background's budget", async () => {
    const { background, sent } = starved();
    await background(`${API}chat.update`, update());
    // The next background call would wait about a minute for its token.
    const waiting = background(`${API}chat.update`, update());
    waiting.catch(() => undefined);
    const started = Date.now();
    const person = await inCallScope({ person: true }, () =>
      background(`${API}chat.update`, update()),
    );
    expect(person.status).toBe(200);
    expect(sent).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("stops waiting for budget once its caller gives way to a newer state", async () => {
    const { background, sent } = starved();
    await background(`${API}chat.update`, update());
    const yielding = new AbortController();
    const waiting = inCallScope({ person: false, yieldSignal: yielding.signal }, () =>
      background(`${API}chat.update`, update()),
    );
    yielding.abort(new Error("a newer state"));
    await expect(waiting).rejects.toThrow("a newer state");
    expect(sent).toHaveLength(1);
  });

  it("sends a lost answer's call no more once its caller gave way", async () => {
    const yielding = new AbortController();
    const { background, sent } = starved(() => {
      // Slack did it and the answer was lost; meanwhile a newer state came.
      yielding.abort(new Error("a newer state"));
      return new Response("<html>503</html>", { status: 503 });
    });
    const call = inCallScope({ person: true, yieldSignal: yielding.signal }, () =>
      background(`${API}chat.update`, update()),
    );
    expect((await call).status).toBe(503);
    expect(sent).toHaveLength(1);
  });
});
