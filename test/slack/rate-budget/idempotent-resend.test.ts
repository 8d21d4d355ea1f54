import { WebClient } from "@slack/web-api";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultSlackRetry } from "../../../src/slack/connection/create-bolt-app.ts";
import { isIdempotent } from "../../../src/slack/rate-budget/idempotent-methods.ts";
import { type FetchFunction, SlackBudget } from "../../../src/slack/rate-budget/slack-budget.ts";
import { apiMethodOf } from "../../../src/slack/rate-budget/slack-wire.ts";
import { createFakeSlack, type FakeSlack } from "../../../support/fake-slack/create-fake-slack.ts";
import { HttpFaultProxy } from "../../../support/helpers/http-fault-proxy.ts";

const logger = pino({ level: "silent" });
const API = "https://slack.example/api/";
const resend = { tries: 3, baseDelayMs: 1 };
const ok = () => new Response(JSON.stringify({ ok: true }), { status: 200 });
const unavailable = () => new Response("<h1>503</h1>", { status: 503 });
const post = { method: "POST", body: "channel=C1&text=hi" };

/** A `fetch` answering each send as `answer` says (by its number, from 1), counting sends. */
function counting(answer: (n: number, init?: RequestInit) => Promise<Response>) {
  const sends: string[] = [];
  const fetch: FetchFunction = (input, init) => {
    sends.push(apiMethodOf(String(input)) ?? String(input));
    return answer(sends.length, init);
  };
  return { fetch, sends };
}

describe("SlackBudget re-sends a call whose answer was lost", () => {
  it.each(["background", "interactive"] as const)(
    "an idempotent one, quickly, until Slack answers (%s)",
    async (kind) => {
      const { fetch, sends } = counting(async (n) => (n < 3 ? unavailable() : ok()));
      const budget = new SlackBudget({ logger, fetch, resend, allowanceScale: 100 });
      const answer = await budget.fetchFor(kind)(`${API}chat.update`, post);
      expect(answer.status).toBe(200);
      expect(sends).toEqual(["chat.update", "chat.update", "chat.update"]);
    },
  );

  it("after a reset or a timeout too, at most `tries` sends in all", async () => {
    const reset = counting(async () => {
      throw new TypeError("fetch failed");
    });
    const budget = new SlackBudget({ logger, fetch: reset.fetch, resend });
    await expect(
      budget.fetchFor("background")(`${API}conversations.replies`, post),
    ).rejects.toThrow("fetch failed");
    expect(reset.sends).toHaveLength(3);
    // The first send hangs past the budget's timeout; the second is answered.
    const slow = counting((n, init) =>
      n === 1
        ? new Promise((_, reject) =>
            init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
          )
        : Promise.resolve(ok()),
    );
    const timed = new SlackBudget({
      logger,
      fetch: slow.fetch,
      resend,
      timeoutMs: { interactive: 20, background: 20 },
    });
    expect((await timed.fetchFor("background")(`${API}chat.update`, post)).status).toBe(200);
    expect(slow.sends).toHaveLength(2);
  });

  it.each([
    "chat.postMessage",
    "chat.postEphemeral",
    "files.completeUploadExternal",
    "canvases.create",
    "views.open",
    "some.newMethod",
  ])("never %s: its 503 or its reset goes up after one send", async (method) => {
    const failing = counting(async () => unavailable());
    const budget = new SlackBudget({ logger, fetch: failing.fetch, resend, allowanceScale: 100 });
    expect((await budget.fetchFor("background")(`${API}${method}`, post)).status).toBe(503);
    expect(failing.sends).toEqual([method]);
    const reset = counting(async () => {
      throw new TypeError("fetch failed");
    });
    const again = new SlackBudget({ logger, fetch: reset.fetch, resend, allowanceScale: 100 });
    await expect(again.fetchFor("interactive")(`${API}${method}`, post)).rejects.toThrow();
    expect(reset.sends).toEqual([method]);
    expect(isIdempotent(method)).toBe(false);
  });

  it("never the upload of a file's bytes to its upload URL", async () => {
    const failing = counting(async () => unavailable());
    const budget = new SlackBudget({ logger, fetch: failing.fetch, resend });
    const url = "https://files.slack.com/upload/v1/ABC";
    expect((await budget.fetchFor("background")(url, post)).status).toBe(503);
    expect(failing.sends).toEqual([url]);
  });
});

describe("a WebClient over the budget, against the fake Slack behind a fault proxy", () => {
  let fake: FakeSlack;
  const proxy = new HttpFaultProxy();
  const seen: string[] = [];
  let client: WebClient;
  beforeAll(async () => {
    await proxy.start();
    fake = await createFakeSlack({ publicOrigin: proxy.origin });
    proxy.target = fake.origin;
    fake.addChannel({ id: "C1", name: "general" });
    const recording: FetchFunction = (input, init) => {
      seen.push(apiMethodOf(String(input)) ?? new URL(String(input)).pathname.split("/")[1] ?? "");
      return globalThis.fetch(input, init);
    };
    const budget = new SlackBudget({ logger, fetch: recording, resend, allowanceScale: 100 });
    client = new WebClient(fake.botToken, {
      slackApiUrl: `${proxy.origin}/api/`,
      retryConfig: defaultSlackRetry,
      rejectRateLimitedCalls: true,
      fetch: budget.fetchFor("background"),
    });
  });
  afterAll(async () => {
    await fake.close();
    await proxy.stop();
  });
  beforeEach(() => {
    proxy.heal();
    seen.length = 0;
  });

  it("posts a message whose answer was lost once, and says so; an edit gets through", async () => {
    proxy.add({ methods: ["chat.postMessage", "chat.update"], fault: "lose_503", times: 2 });
    await expect(client.chat.postMessage({ channel: "C1", text: "once" })).rejects.toMatchObject({
      code: "slack_webapi_http_error",
    });
    const posted = fake.messages("C1").filter((m) => m.text === "once");
    expect(posted).toHaveLength(1);
    await client.chat.update({ channel: "C1", ts: posted[0]?.ts ?? "", text: "edited" });
    expect(fake.messages("C1").map((m) => m.text)).toEqual(["edited"]);
    expect(seen).toEqual(["chat.postMessage", "chat.update", "chat.update"]);
  });

  it("files.uploadV2 sends its three requests through the budget, none twice", async () => {
    await client.filesUploadV2({
      channel_id: "C1",
      file: Buffer.from("notes"),
      filename: "notes.txt",
    });
    expect(seen).toEqual(["files.getUploadURLExternal", "upload", "files.completeUploadExternal"]);
    proxy.add({ methods: ["files.completeUploadExternal"], fault: "lose_reset", times: 1 });
    seen.length = 0;
    await expect(
      client.filesUploadV2({ channel_id: "C1", file: Buffer.from("x"), filename: "x.txt" }),
    ).rejects.toMatchObject({ code: "slack_webapi_request_error" });
    expect(seen).toEqual(["files.getUploadURLExternal", "upload", "files.completeUploadExternal"]);
    // Slack has it, shared in the channel: the caller must look before uploading again.
    expect(fake.uploads.filter((u) => u.filename === "x.txt" && u.completed)).toHaveLength(1);
  });
});
