import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { createFakeSlack } from "../support/fake-slack/create-fake-slack.ts";
import { appHomeOpenedEvent } from "../support/fake-slack/slack-payloads.ts";
import { sendEvent } from "../support/fake-slack/slack-request.ts";
import { eventually } from "../support/helpers/eventually.ts";
import { freePort } from "../support/helpers/free-port.ts";
import { type MainProcess, startMain } from "../support/helpers/main-process.ts";

/*
 * Issue 24: what the person starting the bot sees when something is wrong, from the real
 * process (`node src/main.ts`) against the fake Slack. Where the bot stops: one sentence on
 * stderr naming the variable and where its value is found, no stack trace, exit 1. Where it
 * keeps running: one log line per change, and it recovers by itself.
 */

const SECRET = "startup-signing-secret";
const NOTE_SERVICE = {
  NOTE_TAKER_BASE_URL: "http://127.0.0.1:4010/api/v1/third-party/note-taker",
  NOTE_TAKER_API_KEY: "test-api-key",
  STORE_URL: "memory://",
};

async function fakeSlack(options: Parameters<typeof createFakeSlack>[0] = {}) {
  const slack = await createFakeSlack(options);
  onTestFinished(() => slack.close());
  return slack;
}

function started(env: Record<string, string>): MainProcess {
  const app = startMain(env);
  onTestFinished(async () => {
    await app.stop("SIGKILL");
  });
  return app;
}

/** The process stopped as it should: exit 1, one line on stderr, no stack trace. */
async function expectOneSentence(app: MainProcess, pattern: RegExp) {
  expect(await app.exited).toBe(1);
  expect(app.stderr).toHaveLength(1);
  expect(app.stderr[0]).toMatch(pattern);
  const all = [...app.stderr, ...app.stdout].join("\n");
  expect(all).not.toMatch(/^\s+at /m);
  expect(all).not.toContain("unhandled");
}

const count = (lines: string[], pattern: RegExp) => lines.filter((l) => pattern.test(l)).length;

const readyz = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe("a token Slack refuses stops the start with one sentence naming it", () => {
  it.each([
    ["invalid_auth", undefined],
    ["token_revoked", "token_revoked"],
    ["account_inactive", "account_inactive"],
    ["not_authed", "not_authed"],
  ])("SLACK_BOT_TOKEN refused with %s", async (code, knob) => {
    const slack = await fakeSlack(
      knob === undefined ? {} : { knobs: { refuseToken: { bot: knob } } },
    );
    const app = started({
      // invalid_auth: a token Slack does not know, as Slack answers it (HTTP 200, ok: false).
      SLACK_BOT_TOKEN: knob === undefined ? "xoxb-1-not-this-one" : slack.botToken,
      SLACK_API_URL: slack.apiUrl,
      SLACK_SIGNING_SECRET: SECRET,
      ...NOTE_SERVICE,
    });
    await expectOneSentence(
      app,
      new RegExp(
        `^meeting-notes cannot start because Slack refused SLACK_BOT_TOKEN \\(${code}\\): copy the Bot User OAuth Token \\(xoxb-…\\) from OAuth & Permissions on your app's page at https://api\\.slack\\.com/apps .*, then start it again\\.$`,
      ),
    );
  });

  it("SLACK_APP_TOKEN refused (Socket Mode): names it and the connections:write scope", async () => {
    const slack = await fakeSlack({ socketMode: true });
    const app = started({
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: "xapp-1-A0FAKEAPP-not-this-one",
      SLACK_API_URL: slack.apiUrl,
      ...NOTE_SERVICE,
    });
    await expectOneSentence(
      app,
      /^meeting-notes cannot start because Slack refused SLACK_APP_TOKEN \(invalid_auth\): generate an app-level token with the connections:write scope under Basic Information → App-Level Tokens .* and put it in SLACK_APP_TOKEN, then start it again\.$/,
    );
    // The bot token was fine: only the socket was refused.
    expect(slack.callsTo("apps.connections.open")).toHaveLength(1);
  });
});

describe(".env.example copied as it is", () => {
  it("stops at once naming each placeholder, in the one configuration message", async () => {
    const example = parseEnv(readFileSync(new URL("../.env.example", import.meta.url), "utf8"));
    const app = started(example as Record<string, string>);
    expect(await app.exited).toBe(1);
    const text = app.stderr.join("\n");
    for (const name of ["SLACK_BOT_TOKEN", "NOTE_TAKER_BASE_URL", "NOTE_TAKER_API_KEY"]) {
      expect(text).toContain(`${name} is still the placeholder from .env.example`);
    }
    expect(text).not.toMatch(/^\s+at /m);
    expect(app.stdout).toEqual([]);
  });
});

describe("weak secrets of installs by OAuth", () => {
  it("stop the start at once: an all-zero SLACK_TOKEN_KEY and a 1-character SLACK_STATE_SECRET, one sentence each saying how to make a good one", async () => {
    const app = started({
      ...NOTE_SERVICE,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_CLIENT_ID: "1234.5678",
      SLACK_CLIENT_SECRET: "startup-client-secret",
      SLACK_STATE_SECRET: "s",
      SLACK_TOKEN_KEY: Buffer.alloc(32).toString("base64"),
      SLACK_REDIRECT_URL: "https://notes.example.com/slack/oauth_redirect",
    });
    expect(await app.exited).toBe(1);
    const problems = app.stderr
      .join("\n")
      .split("\n")
      .filter((line) => line.startsWith("  - "));
    expect(problems).toEqual([
      expect.stringMatching(/^ {2}- SLACK_STATE_SECRET [^.]*`openssl rand -base64 32`\.$/),
      expect.stringMatching(/^ {2}- SLACK_TOKEN_KEY [^.]*`openssl rand -base64 32`\.$/),
    ]);
    expect(app.stderr.join("\n")).not.toMatch(/^\s+at /m);
    expect(app.stdout).toEqual([]);
  });
});

describe("Slack out of reach at start-up", () => {
  it("serves /healthz, /readyz 503 and holds Slack's requests while Slack answers 503, then connects by itself", async () => {
    const slack = await fakeSlack();
    slack.knobs.outage = { status: 503 };
    const app = started({
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_API_URL: slack.apiUrl,
      SLACK_SIGNING_SECRET: SECRET,
      ...NOTE_SERVICE,
    });
    const port = await app.port();
    await app.line(/"msg":"Slack cannot be reached \(HTTP 503\)/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(await readyz(port)).toMatchObject({ status: 503, body: { slack: false } });
    // Bolt cannot process a request before it is initialised: Slack is asked to send it again.
    const held = await sendEvent(
      `http://127.0.0.1:${port}/slack/events`,
      SECRET,
      appHomeOpenedEvent("U0ALICE01"),
      { teamId: slack.teamId },
    );
    expect(held.status).toBe(503);

    slack.knobs.outage = undefined;
    await app.line(/"msg":"meeting-notes started"/);
    expect(await readyz(port)).toMatchObject({ status: 200, body: { slack: true } });
    expect(count(app.stdout, /Slack cannot be reached/)).toBe(1);
    expect(count(app.stdout, /"msg":"connected to Slack"/)).toBe(1);
    expect(app.stdout.join("\n")).not.toContain("unhandled");
    expect(app.stderr).toEqual([]);
    expect(await app.stop()).toBe(0);
  });

  it("names a refused connection, keeps trying, and stops cleanly when told to", async () => {
    const port = await freePort();
    const app = started({
      SLACK_BOT_TOKEN: "xoxb-1-never-asked",
      SLACK_API_URL: `http://127.0.0.1:${port}/api/`,
      SLACK_SIGNING_SECRET: SECRET,
      ...NOTE_SERVICE,
    });
    const own = await app.port();
    await app.line(/"msg":"Slack cannot be reached \(ECONNREFUSED\)/);
    expect(await readyz(own)).toMatchObject({ status: 503, body: { slack: false } });
    expect(await app.stop()).toBe(0);
    expect(count(app.stdout, /Slack cannot be reached/)).toBe(1);
    expect(app.stdout.join("\n")).not.toContain("unhandled");
    expect(app.stderr).toEqual([]);
  });
});

describe("a bot token Slack stops taking while the bot runs", () => {
  it("is one error line naming SLACK_BOT_TOKEN, however many calls fail, and /readyz turns 503", async () => {
    const slack = await fakeSlack();
    slack.addUser({ id: "U0ALICE01", name: "alice", real_name: "Alice", locale: "en-US" });
    const app = started({
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_API_URL: slack.apiUrl,
      SLACK_SIGNING_SECRET: SECRET,
      ...NOTE_SERVICE,
    });
    await app.line(/"msg":"meeting-notes started"/);
    const port = await app.port();
    // The app removed from the workspace: Slack answers token_revoked to every call.
    slack.knobs.refuseToken = { bot: "token_revoked" };
    for (let i = 0; i < 3; i += 1) {
      const sent = await sendEvent(
        `http://127.0.0.1:${port}/slack/events`,
        SECRET,
        appHomeOpenedEvent("U0ALICE01"),
        { teamId: slack.teamId },
      );
      expect(sent.status).toBe(200);
    }
    await eventually(
      () => count(app.stdout, /"msg":"a Slack listener failed"/),
      (n) => n === 3,
      { what: "the three App Home listeners, failed" },
    );
    const told = app.stdout.filter((l) => l.includes("Slack now refuses SLACK_BOT_TOKEN"));
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('"level":50');
    expect(told[0]).toMatch(
      /Slack now refuses SLACK_BOT_TOKEN \(token_revoked\), so the bot can do nothing in Slack: copy the Bot User OAuth Token/,
    );
    await eventually(
      () => readyz(port),
      (r) => r.status === 503,
    );
    expect(app.stderr).toEqual([]);
  });
});

describe("configuration mistakes named before anything is asked", () => {
  it("a STORE_URL whose folder cannot be made: one sentence naming STORE_URL and the path", async () => {
    // A file where a folder should be: refused whoever runs the test (root included).
    const notAFolder = new URL(import.meta.url).pathname;
    const app = started({
      ...NOTE_SERVICE,
      SLACK_BOT_TOKEN: "xoxb-1-never-asked",
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: "http://127.0.0.1:9/api/",
      STORE_URL: `sqlite://${notAFolder}/data/meeting-notes.sqlite`,
    });
    await expectOneSentence(
      app,
      /^STORE_URL names a SQLite file the bot cannot open or create \(.*startup-errors\.test\.ts\/data\/meeting-notes\.sqlite; ENOTDIR: .*\): give the bot's user a folder it may write to, or set STORE_URL to sqlite:\/\/PATH in one\.$/,
    );
  });

  it("a user token pasted as SLACK_BOT_TOKEN: refused by its shape, said to be invalid, not missing", async () => {
    const app = started({
      ...NOTE_SERVICE,
      SLACK_BOT_TOKEN: "xoxp-1-a-user-token",
      SLACK_SIGNING_SECRET: SECRET,
    });
    expect(await app.exited).toBe(1);
    const text = app.stderr.join("\n");
    expect(text).toContain("meeting-notes cannot start: some settings are invalid.");
    expect(text).toContain("SLACK_BOT_TOKEN must be a bot token starting with xoxb-");
    expect(text).not.toContain("xoxp-1-a-user-token");
    expect(text).not.toContain("incomplete");
  });
});
