import { HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createBoltApp } from "../../src/slack/create-bolt-app.ts";

const base = {
  SLACK_BOT_TOKEN: "xoxb-test-token",
  NOTE_TAKER_BASE_URL: "http://127.0.0.1:9/api/v1/third-party/note-taker",
  NOTE_TAKER_API_KEY: "key",
  STORE_URL: "memory://",
};

function receiverOf(app: ReturnType<typeof createBoltApp>["app"]): unknown {
  // Bolt keeps its receiver private; the mode is what this test is about.
  return (app as unknown as { receiver: unknown }).receiver;
}

describe("createBoltApp", () => {
  it("uses Socket Mode when an app token is set, with no signing secret needed", () => {
    const config = loadConfig({ ...base, SLACK_APP_TOKEN: "xapp-1-test" });
    const bolt = createBoltApp({ config, logger: pino({ level: "silent" }), routes: [] });
    expect(receiverOf(bolt.app)).toBeInstanceOf(SocketModeReceiver);
  });

  it("uses HTTP at /slack/events otherwise", () => {
    const config = loadConfig({ ...base, SLACK_SIGNING_SECRET: "secret" });
    const bolt = createBoltApp({ config, logger: pino({ level: "silent" }), routes: [] });
    expect(receiverOf(bolt.app)).toBeInstanceOf(HTTPReceiver);
  });
});
