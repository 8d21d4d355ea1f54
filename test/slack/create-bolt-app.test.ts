import { HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createBoltApp } from "../../src/slack/connection/create-bolt-app.ts";

const base = {
  SLACK_BOT_TOKEN: "xoxb-test-token",
  NOTE_TAKER_BASE_URL: "http://127.0.0.1:9/api/v1/third-party/note-taker",
  NOTE_TAKER_API_KEY: "key",
  STORE_URL: "memory://",
};

const options = {
  logger: pino({ level: "silent" }),
  claimSignature: async () => true,
};

function receiverOf(app: ReturnType<typeof createBoltApp>["app"]): unknown {
  // Bolt keeps its receiver private; the mode is what this test is about.
  return (app as unknown as { receiver: unknown }).receiver;
}

describe("createBoltApp", () => {
  it("uses Socket Mode when an app token is set, with no HTTP server or Slack route of its own", () => {
    const config = loadConfig({ ...base, SLACK_APP_TOKEN: "xapp-1-test" });
    const bolt = createBoltApp({ config, ...options });
    const receiver = receiverOf(bolt.app);
    expect(receiver).toBeInstanceOf(SocketModeReceiver);
    // Bolt builds this server only for custom routes or OAuth; ours serves the ops routes.
    expect((receiver as { httpServer?: unknown }).httpServer).toBeUndefined();
    expect(bolt.slackRoute).toBeUndefined();
    // Not connected before start(): /readyz says 503 until Slack's hello.
    expect(bolt.socket?.connected).toBe(false);
  });

  it("uses HTTP otherwise: a POST /slack/events route for our server, and stops unstarted", async () => {
    const config = loadConfig({ ...base, SLACK_SIGNING_SECRET: "secret" });
    const bolt = createBoltApp({ config, ...options });
    expect(receiverOf(bolt.app)).toBeInstanceOf(HTTPReceiver);
    expect(bolt.socket).toBeUndefined();
    expect(bolt.slackRoute).toMatchObject({
      path: "/slack/events",
      methods: ["POST"],
      readsBody: true,
    });
    // Bolt's HTTPReceiver.stop() rejects when it was never started; ours must not.
    await expect(bolt.stop()).resolves.toBeUndefined();
  });

  it("leaves the signature to the request guard alone: Bolt's check is off and has no secret", () => {
    const config = loadConfig({ ...base, SLACK_SIGNING_SECRET: "secret" });
    const bolt = createBoltApp({ config, ...options });
    // Private in Bolt's types; the options it was built with are what this test is about.
    const receiver = receiverOf(bolt.app) as {
      signatureVerification: boolean;
      signingSecret: string;
    };
    expect(receiver.signatureVerification).toBe(false);
    // Were Bolt to verify anyway, every signed request would fail (the e2e suites would).
    expect(receiver.signingSecret).toBe("");
  });
});
