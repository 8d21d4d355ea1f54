import { Writable } from "node:stream";
import { ErrorCode } from "@slack/web-api";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { connectSlack } from "../../src/slack/connection/connect-slack.ts";
import { createTokenWatch, troubleOf } from "../../src/slack/connection/slack-troubles.ts";
import { StartupError } from "../../src/startup-error.ts";

/** Errors as @slack/web-api throws them (errors.js): a refusal, no answer, an error page. */
const refused = (error: string) =>
  Object.assign(new Error(`An API error occurred: ${error}`), {
    code: ErrorCode.PlatformError,
    data: { ok: false, error },
  });
const requestError = (cause: Error) =>
  Object.assign(new Error("A request error occurred: fetch failed"), {
    code: ErrorCode.RequestError,
    original: Object.assign(new TypeError("fetch failed"), { cause }),
  });
const systemError = (code: string) =>
  requestError(Object.assign(new Error(`connect ${code}`), { code }));
const timedOut = () =>
  Object.assign(new Error("A request error occurred"), {
    code: ErrorCode.RequestError,
    original: new DOMException("The operation was aborted due to timeout", "TimeoutError"),
  });
const httpError = (statusCode: number) =>
  Object.assign(new Error(`An HTTP protocol error occurred: statusCode = ${statusCode}`), {
    code: ErrorCode.HTTPError,
    statusCode,
  });

function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, callback) {
        lines.push(JSON.parse(String(chunk)));
        callback();
      },
    }),
  );
  return { logger, lines };
}

describe("what a failed token check means", () => {
  it.each([
    ["ENOTFOUND (DNS)", systemError("ENOTFOUND"), "ENOTFOUND"],
    ["ECONNREFUSED", systemError("ECONNREFUSED"), "ECONNREFUSED"],
    ["a connect timeout", systemError("UND_ERR_CONNECT_TIMEOUT"), "UND_ERR_CONNECT_TIMEOUT"],
    ["no answer in time", timedOut(), "no answer in time"],
    ["an outage page", httpError(503), "HTTP 503"],
    ["Slack's internal_error", refused("internal_error"), "internal_error"],
    ["a WebSocket that closed before hello (no error at all)", undefined, "no connection"],
  ])("%s: Slack out of reach", (_what, error, reason) => {
    expect(troubleOf(error)).toEqual({ kind: "unreachable", reason });
  });

  it.each(["invalid_auth", "not_authed", "account_inactive", "token_revoked"])(
    "%s: the token refused",
    (code) => {
      expect(troubleOf(refused(code))).toEqual({ kind: "refused", code });
    },
  );
});

describe("connecting to Slack at start-up", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const backoff = { baseMs: 1_000, maxMs: 8_000 };

  it("stops at once with one sentence naming SLACK_BOT_TOKEN when Slack refuses it", async () => {
    const { logger, lines } = capturedLogger();
    const probe = vi.fn(async () => Promise.reject(refused("token_revoked")));
    const init = vi.fn(async () => undefined);
    const error = await connectSlack({
      probe,
      init,
      logger,
      backoff,
      signal: new AbortController().signal,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(
      /^meeting-notes cannot start because Slack refused SLACK_BOT_TOKEN \(token_revoked\): copy the Bot User OAuth Token \(xoxb-…\) from OAuth & Permissions .* into SLACK_BOT_TOKEN, then start it again\.$/,
    );
    expect((error as Error).message).not.toContain("\n");
    expect([probe.mock.calls.length, init.mock.calls.length]).toEqual([1, 0]);
    expect(lines).toEqual([]);
  });

  it("names SLACK_APP_TOKEN and its scope when Slack refuses the app-level token", async () => {
    const { logger } = capturedLogger();
    const error = await connectSlack({
      probe: async () => undefined,
      init: async () => undefined,
      connect: async () => Promise.reject(refused("invalid_auth")),
      logger,
      backoff,
      signal: new AbortController().signal,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(
      /^meeting-notes cannot start because Slack refused SLACK_APP_TOKEN \(invalid_auth\): generate an app-level token with the connections:write scope under Basic Information → App-Level Tokens/,
    );
  });

  it("tries again with doubling waits while Slack is out of reach, says so once, then once connected", async () => {
    const { logger, lines } = capturedLogger();
    const failures = [systemError("ENOTFOUND"), systemError("ECONNREFUSED"), httpError(502)];
    const tried: number[] = [];
    const probe = vi.fn(async () => {
      tried.push(Date.now());
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
    });
    const init = vi.fn(async () => undefined);
    vi.setSystemTime(0);
    const connected = connectSlack({
      probe,
      init,
      logger,
      backoff,
      signal: new AbortController().signal,
    });
    await vi.advanceTimersByTimeAsync(1_000 + 2_000 + 4_000);
    expect(await connected).toBe(true);
    expect(tried).toEqual([0, 1_000, 3_000, 7_000]);
    expect(init).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [
        40,
        "Slack cannot be reached (ENOTFOUND): trying again, at least every 8 s; /readyz answers 503 meanwhile",
      ],
      [30, "connected to Slack"],
    ]);
  });

  it("keeps the waits at their cap, and connects the socket once the Web API answers", async () => {
    const { logger } = capturedLogger();
    let socketFailures = 6;
    const tried: number[] = [];
    vi.setSystemTime(0);
    const connected = connectSlack({
      probe: async () => undefined,
      init: async () => undefined,
      connect: async () => {
        tried.push(Date.now());
        if (socketFailures-- > 0) throw undefined;
      },
      logger,
      backoff,
      signal: new AbortController().signal,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await connected).toBe(true);
    expect(tried).toEqual([0, 1_000, 3_000, 7_000, 15_000, 23_000, 31_000]);
  });

  it("gives up when the bot stops while it waits: resolves false, no further try", async () => {
    const { logger } = capturedLogger();
    const stop = new AbortController();
    const probe = vi.fn(async () => Promise.reject(systemError("ECONNREFUSED")));
    const connected = connectSlack({
      probe,
      init: async () => undefined,
      logger,
      backoff,
      signal: stop.signal,
    });
    await vi.advanceTimersByTimeAsync(1_500);
    stop.abort();
    expect(await connected).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probe).toHaveBeenCalledTimes(2);
  });
});

describe("a bot token refused while the bot runs", () => {
  it("is told once in one error line naming SLACK_BOT_TOKEN, again only after Slack took it", () => {
    const { logger, lines } = capturedLogger();
    const asked = vi.fn();
    const watch = createTokenWatch(logger, asked);
    watch.failed("invalid_auth");
    expect(lines).toEqual([]);
    watch.arm();
    for (const code of ["channel_not_found", undefined, "token_revoked", "token_revoked"]) {
      watch.failed(code);
    }
    watch.failed("invalid_auth");
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [
        50,
        expect.stringMatching(
          /^Slack now refuses SLACK_BOT_TOKEN \(token_revoked\), so the bot can do nothing in Slack: copy the Bot User OAuth Token/,
        ),
      ],
    ]);
    expect(asked).toHaveBeenCalledTimes(1);
    watch.accepted();
    watch.failed("account_inactive");
    expect(lines).toHaveLength(2);
  });
});
