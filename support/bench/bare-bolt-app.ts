/**
 * The baseline of the ack-latency and start-up benchmarks: a bare Bolt app with no-op
 * listeners, against the same fake Slack as the bot. Env: SLACK_BOT_TOKEN, SLACK_API_URL, and
 * SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode, on a free port).
 * Prints `{"port":N}` (`null` in Socket Mode) once `app.start()` has resolved; stops on SIGTERM.
 */
import type { AddressInfo } from "node:net";
import { App, LogLevel } from "@slack/bolt";

const appToken = process.env.SLACK_APP_TOKEN;
const clientOptions = { slackApiUrl: process.env.SLACK_API_URL ?? "" };
const app = new App({
  token: process.env.SLACK_BOT_TOKEN ?? "",
  // The bot logs at info; Bolt's own logger at info prints nothing per request either.
  logLevel: LogLevel.INFO,
  clientOptions,
  ...(appToken === undefined
    ? { signingSecret: process.env.SLACK_SIGNING_SECRET ?? "" }
    : // The Socket Mode client's `apps.connections.open` goes to the same fake Slack.
      { socketMode: true, appToken, installerOptions: { clientOptions } }),
});
app.event("message", async () => {});
app.command("/meeting-notes", async ({ ack }) => {
  await ack();
});

const server = (await app.start(0)) as { address?(): AddressInfo | string | null };
const address = appToken === undefined ? server.address?.() : undefined;
const port = typeof address === "object" && address !== null ? address.port : null;
process.stdout.write(`${JSON.stringify({ port })}\n`);

const stop = () => {
  app.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
