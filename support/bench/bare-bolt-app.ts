/**
 * The ack-latency baseline: a bare Bolt app in HTTP mode with no-op listeners, against the
 * same fake Slack as the bot. Env: SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_API_URL.
 * Prints `{"port":N}` once listening; stops on SIGTERM.
 */
import type { AddressInfo } from "node:net";
import { App, LogLevel } from "@slack/bolt";

const app = new App({
  token: process.env.SLACK_BOT_TOKEN ?? "",
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? "",
  // The bot logs at info; Bolt's own logger at info prints nothing per request either.
  logLevel: LogLevel.INFO,
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL ?? "" },
});
app.event("message", async () => {});
app.command("/meeting-notes", async ({ ack }) => {
  await ack();
});

const server = (await app.start(0)) as { address(): AddressInfo | string | null };
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);

const stop = () => {
  app.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
