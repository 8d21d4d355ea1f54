import { createInterface } from "node:readline";
import { ACTIONS } from "../../../src/slack/ids.ts";
import { socketDelivery } from "../../e2e/slack-delivery.ts";
import { createEmulator } from "../../emulator/create-emulator.ts";
import { SOCKET_MANIFEST } from "./app-manifest.ts";
import { createFakeSlack } from "./create-fake-slack.ts";
import type { FakeMessage } from "./fake-slack-types.ts";
import { blockActionPayload, fileShareMessageEvent } from "./slack-payloads.ts";
import type { DisconnectReason } from "./socket-mode-types.ts";

const CHANNEL = "C0LOCAL01";
const ALICE = "U0ALICE01";

const HELP = `Commands (type them here, one per line):
  upload [name]          Alice shares a recording in #weekly-sync (an events_api envelope)
  click <button>         Alice clicks a button of the newest status message:
                         ${Object.keys(ACTIONS).join(", ")}
  command [text]         Alice types /meeting-notes [text] (a slash_commands envelope)
  disconnect [reason]    the server sends disconnect: warning, refresh_requested, link_disabled
  quit
Whatever the bot posts in the channel is printed here.`;

/**
 * `npm run fake-slack`: the fake Slack (Web API and Socket Mode server) and the Note Service
 * emulator, for running the real bot locally in Socket Mode with no workspace and no API
 * key. Prints the environment to start the bot with, then takes commands on stdin.
 */
async function main(): Promise<void> {
  const fake = await createFakeSlack({ socketMode: true, manifest: SOCKET_MANIFEST });
  const emulator = await createEmulator({
    knobs: { audioDurationMs: 3000, noteDurationMs: 1500, pollsToComplete: 2 },
  });
  const socket = fake.socket;
  if (socket === undefined) throw new Error("the fake Slack has no Socket Mode server");
  fake.addUser({ id: ALICE, name: "alice", real_name: "Alice Nguyen", locale: "en-US" });
  fake.addChannel({ id: CHANNEL, name: "weekly-sync" });
  const deliver = socketDelivery(socket, fake.teamId);

  const env = {
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_APP_TOKEN: socket.appToken,
    SLACK_API_URL: fake.apiUrl,
    NOTE_TAKER_BASE_URL: emulator.baseUrl,
    NOTE_TAKER_API_KEY: emulator.apiKey,
  };
  const line = Object.entries(env)
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
  process.stdout.write(`Start the bot in another terminal with:\n\n  ${line} npm start\n\n`);
  process.stdout.write(`${HELP}\n`);

  const printed = new Map<string, string>();
  const watch = setInterval(() => printNew(fake.messages(CHANNEL), printed), 300);
  const stop = async () => {
    clearInterval(watch);
    await Promise.all([fake.close(), emulator.close()]);
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());

  for await (const input of createInterface({ input: process.stdin })) {
    const [word = "", ...rest] = input.trim().split(/\s+/);
    const arg = rest.join(" ");
    if (word === "quit") return stop();
    if (word === "upload") {
      const name = arg || "weekly-sync.m4a";
      const file = fake.addFile({ name, bytes: Buffer.alloc(4096, 7), user: ALICE });
      const message = fake.shareFile(file, { channel: CHANNEL, user: ALICE });
      const event = fileShareMessageEvent(file, { channel: CHANNEL, user: ALICE, ts: message.ts });
      say((await deliver.event(event)).acked ? "upload delivered" : "the bot did not ack");
    } else if (word === "click") {
      say(await click(fake.messages(CHANNEL), arg, deliver));
    } else if (word === "command") {
      const answer = await deliver.command({ user_id: ALICE, channel_id: CHANNEL, text: arg });
      say(answer.payload === undefined ? "acked" : `answered: ${JSON.stringify(answer.payload)}`);
    } else if (word === "disconnect") {
      socket.disconnect((arg || "refresh_requested") as DisconnectReason);
    } else if (word !== "") {
      say(HELP);
    }
  }
}

/** Clicks `button` (a key of ACTIONS) on the newest message that has it. */
async function click(
  messages: FakeMessage[],
  button: string,
  deliver: ReturnType<typeof socketDelivery>,
): Promise<string> {
  const actionId = ACTIONS[button as keyof typeof ACTIONS];
  for (const message of [...messages].reverse()) {
    const blocks = (message.blocks ?? []) as {
      elements?: { action_id?: string; value?: string }[];
    }[];
    const value = blocks
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === actionId)?.value;
    if (value === undefined) continue;
    const payload = blockActionPayload({
      actionId,
      value,
      user: ALICE,
      channel: CHANNEL,
      messageTs: message.ts,
      ...(message.thread_ts === undefined ? {} : { threadTs: message.thread_ts }),
    });
    return (await deliver.interaction(payload)).acked ? "clicked" : "the bot did not ack";
  }
  return `no message has a ${button} button`;
}

/** Prints each message the bot posted or edited since the last look. */
function printNew(messages: FakeMessage[], printed: Map<string, string>): void {
  for (const message of messages) {
    if (message.user === ALICE || printed.get(message.ts) === message.text) continue;
    printed.set(message.ts, message.text);
    say(`[bot ${message.ts}] ${shown(message)}`);
  }
}

/** A message as one line: its text, else its first Markdown line, else its files. */
function shown(message: FakeMessage): string {
  const markdown = ((message.blocks ?? []) as { type?: string; text?: unknown }[]).find(
    (b) => b.type === "markdown" && typeof b.text === "string",
  );
  const files = (message.files ?? []).map((f) => `[file ${f.name}]`).join(" ");
  return message.text || String(markdown?.text ?? "").split("\n")[0] || files;
}

function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`The fake Slack could not start: ${String(error)}\n`);
  process.exit(1);
});
